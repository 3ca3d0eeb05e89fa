/**
 * Compression off the request thread: the payloads of one turn of the event loop go to a worker thread in one
 * message and come back, compressed, in the order they were sent (one worker answers its messages in turn), so
 * jobs are still stored in the order they arrived. A worker that fails or exits fails the payloads it held
 * (their requests are answered 5xx, nothing was acknowledged) and the next ones are compressed on this thread.
 */
import { Worker } from 'node:worker_threads'
import { compressJson } from './compress-json.js'

/** Compresses payloads' JSON text as {@link compressJson} does. */
export interface Compressor {
  compress(json: string): Promise<Buffer>
  /** Stops the worker once it answered what it was sent; later calls compress on the caller's thread. */
  close(): Promise<void>
}

/**
 * The worker's code, evaluated: no file to find, whether hookpilot runs from dist/ or from its sources. It loads
 * node's modules with `process.getBuiltinModule`, which works whether node evaluates it as CommonJS or, under
 * `--input-type=module` (inherited from the parent), as a module. Each result is copied into a buffer of its own, whose memory is then moved, not copied, back.
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

interface Waiting {
  readonly resolve: (bytes: Buffer) => void
  readonly reject: (err: unknown) => void
}

/** Compresses each of `texts` on this thread (after the worker stopped). */
function compressHere(texts: readonly string[], waiting: readonly Waiting[]): void {
  texts.forEach((text, i) => {
    try {
      waiting[i]!.resolve(compressJson(text))
    } catch (err) {
      waiting[i]!.reject(err)
    }
  })
}

/** Starts the worker. */
export function workerCompressor(): Compressor {
  const thread = new Worker(WORKER, { eval: true })
  let running = true
  /** Sent and not answered, in the order sent; each message's payloads are answered together. */
  const sent: Waiting[][] = []
  let batch: { texts: string[]; waiting: Waiting[] } | undefined
  /** Told when nothing sent waits for its answer any more (close waits for it). */
  let drained = () => {}

  const stopped = (err: unknown) => {
    running = false
    for (const waiting of sent.splice(0)) for (const w of waiting) w.reject(err)
    drained()
  }
  thread.on('message', (out: Uint8Array[]) => {
    const waiting = sent.shift() ?? []
    waiting.forEach((w, i) => w.resolve(Buffer.from(out[i]!.buffer, out[i]!.byteOffset, out[i]!.byteLength)))
    if (sent.length === 0) {
      thread.unref()
      drained()
    }
  })
  thread.on('error', (err) => stopped(err))
  thread.on('exit', (code) => stopped(new Error(`the compression worker exited (code ${code})`)))
  // Held only while it owes answers: a process whose gateway was never closed (its listen() failed) still exits
  // by itself, and one that waits for nothing but a payload's bytes does not exit before they come. After the
  // listeners, since adding a 'message' listener refs the worker again.
  thread.unref()

  const flush = () => {
    const { texts, waiting } = batch!
    batch = undefined
    // The worker stopped after this batch was started: compressed here rather than failed.
    if (!running) return compressHere(texts, waiting)
    sent.push(waiting)
    thread.ref()
    thread.postMessage(texts)
  }

  return {
    compress(json) {
      if (!running) return Promise.resolve().then(() => compressJson(json))
      return new Promise((resolve, reject) => {
        if (!batch) {
          batch = { texts: [], waiting: [] }
          setImmediate(flush)
        }
        batch.texts.push(json)
        batch.waiting.push({ resolve, reject })
      })
    },
    async close() {
      if (!running) return
      running = false
      if (sent.length > 0) await new Promise<void>((resolve) => (drained = resolve))
      await thread.terminate()
    },
  }
}
