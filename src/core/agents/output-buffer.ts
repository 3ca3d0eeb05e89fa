/**
 * Byte-bounded collectors for a child's output streams: one keeps the head (the answer, up to a cap), the other
 * keeps the tail (the end of stderr, where the error usually is). Chunks are decoded only once, at the end, so
 * a multi-byte character split across chunks survives.
 */

/** Keeps the first `maxBytes` bytes of a stream and reports when more arrived. */
export class HeadBuffer {
  readonly #chunks: Buffer[] = []
  #bytes = 0
  #overflowed = false

  constructor(readonly maxBytes: number) {}

  /** Adds a chunk; false once the stream has passed the cap (the rest is dropped). */
  push(chunk: Buffer): boolean {
    if (this.#overflowed) return false
    const room = this.maxBytes - this.#bytes
    if (chunk.length > room) {
      if (room > 0) this.#chunks.push(chunk.subarray(0, room))
      this.#bytes = this.maxBytes
      this.#overflowed = true
      return false
    }
    this.#chunks.push(chunk)
    this.#bytes += chunk.length
    return true
  }

  /** Whether the stream passed the cap. */
  get overflowed(): boolean {
    return this.#overflowed
  }

  /** The kept bytes as UTF-8 text. */
  text(): string {
    return Buffer.concat(this.#chunks, this.#bytes).toString('utf8')
  }
}

/** Keeps the last `maxBytes` bytes of a stream, whatever its length. */
export class TailBuffer {
  readonly #chunks: Buffer[] = []
  #bytes = 0

  constructor(readonly maxBytes: number) {}

  /** Adds a chunk, dropping whole old chunks that are no longer needed for the tail. */
  push(chunk: Buffer): void {
    this.#chunks.push(chunk)
    this.#bytes += chunk.length
    let first = this.#chunks[0]
    while (first !== undefined && this.#bytes - first.length >= this.maxBytes) {
      this.#chunks.shift()
      this.#bytes -= first.length
      first = this.#chunks[0]
    }
  }

  /** The last `maxBytes` bytes as UTF-8 text. */
  text(): string {
    const all = Buffer.concat(this.#chunks, this.#bytes)
    return all.subarray(Math.max(0, all.length - this.maxBytes)).toString('utf8')
  }
}
