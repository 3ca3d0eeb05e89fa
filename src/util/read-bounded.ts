/**
 * Reading a stream of bytes a sender controls without holding more than it may send: every chunk is offered
 * to `refuse` first, and the first refusal cancels the stream (the rest is never read). The fetch adapter reads
 * webhook bodies with it, the openai runner a model's reply.
 */

/** The whole body, or why it was refused. */
export type BoundedRead<R> = { readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false; readonly refused: R }

/**
 * Reads `stream` to its end unless `refuse(size, chunk)` (size counting the chunk) answers a reason first.
 *
 * @example
 * ```ts
 * const read = await readBounded(response.body, (size) => (size > 1_000_000 ? 'too-large' : undefined))
 * ```
 */
export async function readBounded<R>(
  stream: ReadableStream<Uint8Array> | null,
  refuse: (size: number, chunk: Uint8Array) => R | undefined,
): Promise<BoundedRead<R>> {
  if (stream === null) return { ok: true, bytes: new Uint8Array() }
  const reader = stream.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    const refused = refuse(size, value)
    if (refused !== undefined) {
      await reader.cancel().catch(() => {})
      return { ok: false, refused }
    }
    chunks.push(value)
  }
  return { ok: true, bytes: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) }
}
