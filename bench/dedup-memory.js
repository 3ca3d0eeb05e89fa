/**
 * Heap held by the memory state backend for its de-dup window: finished jobs, each holding its delivery id's
 * key, as the gateway leaves them (kept an hour, up to 100,000). Run with --expose-gc (run.js does):
 *
 *   node --expose-gc bench/dedup-memory.js [count] [payload-count]
 *
 * Jobs go through the backend's own interface, as the pipeline and the dispatcher drive it: reserve the key
 * `<route>\u0000<X-GitHub-Delivery>` (uuid ids), add the job, let a worker lease it and finish it `done`.
 * Two figures, each heapUsed after a full GC minus heapUsed after a full GC before the first job:
 *   keys      `count` jobs with an empty payload: what the window costs whatever the events hold
 *   payloads  `payload-count` jobs with the bench's ~25 KB pull_request payload, parsed per job as the
 *             pipeline parses each request: what the backend also keeps for `jobs retry`
 * Prints one JSON line.
 */
import { randomUUID } from 'node:crypto'
import { silentLogger } from '../dist/index.js'
import { memoryState } from '../dist/plugins/state/memory/memory-state.js'
import { ROUTE, benchPayload } from './payload.js'

if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc')
  process.exit(2)
}

const count = Number(process.argv[2] ?? 100_000)
const payloadCount = Number(process.argv[3] ?? 2_000)
const WINDOW_MS = 60 * 60 * 1000 // the pipeline's de-dup window: one hour
const WARM = 1_000
const CHUNK = 500

function settledHeap() {
  for (let i = 0; i < 3; i++) globalThis.gc()
  return process.memoryUsage().heapUsed
}

/** A started backend whose worker finishes every job at once; sized so nothing measured is swept. */
async function backend(total) {
  const state = memoryState({ concurrency: 64, maxQueue: CHUNK, maxFinished: total })
  await state.start({ log: silentLogger })
  state.queue.start(async () => ({ kind: 'done' }))
  return state
}

async function drained(state) {
  for (;;) {
    const { queued, running } = await state.jobs.counts()
    if (queued + running === 0) return
    await new Promise((resolve) => setImmediate(resolve))
  }
}

/** Stores and finishes `n` jobs, CHUNK at a time (the queue's bound); resolves the last key. */
async function finishJobs(state, n, payload) {
  let key
  for (let done = 0; done < n; done += CHUNK) {
    for (let i = done; i < Math.min(n, done + CHUNK); i++) {
      const deliveryId = randomUUID()
      key = `${ROUTE}\u0000${deliveryId}`
      const reservation = await state.dedup.reserve(key, WINDOW_MS)
      const json = payload()
      const job = { route: ROUTE, event: 'pull_request', deliveryId, dedupKey: key, payload: JSON.parse(json), payloadJson: json, receivedAt: Date.now() }
      const added = await state.queue.add(job, reservation)
      if (added.status !== 'accepted') throw new Error(`job ${i} was not accepted: ${added.status}`)
    }
    await drained(state)
  }
  return key
}

/** heapUsed growth per finished job, and whether the last key still reads `duplicate`. */
async function measure(n, payload) {
  const state = await backend(WARM + n)
  // Warm the code paths first so compiled code is not counted as data.
  await finishJobs(state, WARM, payload)
  const before = settledHeap()
  const last = await finishJobs(state, n, payload)
  const after = settledHeap()
  // Still held: a redelivery of a finished job must be refused (and this keeps `state` alive until here).
  const held = (await state.dedup.reserve(last, WINDOW_MS)).status === 'duplicate'
  await state.queue.stop(0)
  const bytes = after - before
  return { count: n, held, bytes, mib: bytes / 2 ** 20, bytesPerJob: bytes / n }
}

const body = benchPayload().body.toString('utf8')
const keys = await measure(count, () => '{}')
const payloads = await measure(payloadCount, () => body)
console.log(JSON.stringify({ keys, payloads: { ...payloads, payloadBytes: Buffer.byteLength(body) } }))
