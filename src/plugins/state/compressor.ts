/**
 * Compression off the request thread: the payloads of one turn of the event loop go to a worker thread in one
 * message and come back compressed. Every payload is answered in the order it was asked for, whichever way it
 * was compressed, so jobs are stored in the order they arrived (a concurrency group's newest job is the one
 * stored last). A worker that fails or exits leaves nothing unanswered: what it held, and every payload after
 * it, is compressed on this thread.
 */
import { Worker } from 'node:worker_threads'
import { compressJson } from './compress-json.js'

/** Compresses payloads' JSON text as {@link compressJson} does. */
export interface Compressor {
  compress(json: string): Promise<Buffer>
  /** Answers every payload asked for so far, then stops the worker; later calls compress on the caller's thread. */
  close(): Promise<void>
}

/**
 * The worker's code, evaluated: no file to find, whether hookpilot runs from dist/ or from its sources. It loads
 * node's modules with `process.getBuiltinModule`, which works whether node evaluates it as CommonJS or, under
 * `--input-type=module` (inherited from the parent), as a module. Each result is copied into a buffer of its
 * own, whose memory is then moved, not copied, back.
 */
const WORKER = `
const { parentPort } = process.getBuiltinModule('node:worker_threads')
const { brotliCompressSync, constants } = process.getBuiltinModule('node:zlib')
const FASTEST = { params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } }
parentPort.on('message', (texts) => {
  const out = texts.map((text) => new Uint8Array(brotliCompressSync(text, FASTEST)))
  parentPort.postMessage(out, out.map((bytes) => bytes.buffer))
})
`

/** A payload asked for and not answered yet; `result` is set once it is compressed (or failed to be). */
interface Pending {
  readonly text: string
  readonly resolve: (bytes: Buffer) => void
  readonly reject: (err: unknown) => void
  result?: { readonly bytes: Buffer } | { readonly err: unknown }
}

/** Compresses `pending` on this thread. */
function compressHere(pending: Pending): void {
  try {
    pending.result = { bytes: compressJson(pending.text) }
  } catch (err) {
    pending.result = { err }
  }
}

/**
 * Starts the worker. `stopped` hears once if it fails or exits by itself (the payloads are then compressed on
 * this thread).
 */
export function workerCompressor(stopped: (err: unknown) => void = () => {}): Compressor {
  const thread = new Worker(WORKER, { eval: true })
  let running = true
  /** Every payload asked for and not answered yet, in the order asked. */
  const waiting: Pending[] = []
  /** Not sent yet: the current turn's batch. */
  let batch: Pending[] = []
  /** Sent to the worker and not answered, one entry per message, in the order sent. */
  const sent: Pending[][] = []
  /** Told when nothing waits any more (close waits for it). */
  let idle = () => {}

  /** Answers, in order, every payload whose turn has come. */
  const answer = () => {
    while (waiting[0]?.result !== undefined) {
      const pending = waiting.shift()!
      const result = pending.result!
      if ('bytes' in result) pending.resolve(result.bytes)
      else pending.reject(result.err)
    }
    if (waiting.length === 0) idle()
  }
  const failed = (err: unknown) => {
    if (!running && sent.length === 0) return
    if (running) stopped(err)
    running = false
    for (const items of sent.splice(0)) items.forEach(compressHere)
    thread.unref()
    answer()
  }
  thread.on('message', (out: Uint8Array[]) => {
    const items = sent.shift() ?? []
    items.forEach((pending, i) => (pending.result = { bytes: Buffer.from(out[i]!.buffer, out[i]!.byteOffset, out[i]!.byteLength) }))
    if (sent.length === 0) thread.unref()
    answer()
  })
  thread.on('error', failed)
  thread.on('exit', (code) => failed(new Error(`the compression worker exited (code ${code})`)))
  // Held only while it owes answers: a process whose gateway was never closed (its listen() failed) still exits
  // by itself, and one that waits for nothing but a payload's bytes does not exit before they come. After the
  // listeners, since adding a 'message' listener refs the worker again.
  thread.unref()

  const flush = () => {
    const items = batch
    batch = []
    if (!running) {
      items.forEach(compressHere)
      return answer()
    }
    sent.push(items)
    thread.ref()
    thread.postMessage(items.map((pending) => pending.text))
  }

  return {
    compress(json) {
      return new Promise((resolve, reject) => {
        const pending: Pending = { text: json, resolve, reject }
        waiting.push(pending)
        // Nothing before it unanswered: no turn to wait for.
        if (!running && waiting.length === 1) {
          compressHere(pending)
          return answer()
        }
        if (batch.length === 0) setImmediate(flush)
        batch.push(pending)
      })
    },
    async close() {
      if (!running) return
      running = false
      if (waiting.length > 0) await new Promise<void>((resolve) => (idle = resolve))
      await thread.terminate()
    },
  }
}
