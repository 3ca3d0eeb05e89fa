/**
 * Heap held by the in-memory idempotency store with 100,000 delivery ids. Run with --expose-gc (run.js does):
 *
 *   node --expose-gc bench/idempotency-memory.js [count]
 *
 * Keys are built as the pipeline builds them, `<route>\u0000<X-GitHub-Delivery>`, with uuid ids; the figure is
 * heapUsed after a full GC minus heapUsed after a full GC before the first claim. Prints one JSON line.
 */
import { randomUUID } from 'node:crypto'
import { memoryIdempotencyStore } from '../dist/index.js'
import { ROUTE } from './payload.js'

if (typeof globalThis.gc !== 'function') {
  console.error('run with node --expose-gc')
  process.exit(2)
}

const count = Number(process.argv[2] ?? 100_000)
const TTL_MS = 60 * 60 * 1000 // the pipeline's: one hour

function settledHeap() {
  for (let i = 0; i < 3; i++) globalThis.gc()
  return process.memoryUsage().heapUsed
}

// The store sizes itself for 100,000 entries by default; say so explicitly when measuring more.
const store = memoryIdempotencyStore(count > 100_000 ? { maxEntries: count } : {})
// Warm the code paths first (then give the ids back) so compiled code is not counted as data.
for (let i = 0; i < 1000; i++) {
  const key = `${ROUTE}\u0000${randomUUID()}`
  await store.claim(key, TTL_MS)
  await store.release(key)
}

const before = settledHeap()
let claimed = 0
for (let i = 0; i < count; i++) {
  if (await store.claim(`${ROUTE}\u0000${randomUUID()}`, TTL_MS)) claimed++
}
const after = settledHeap()
// Still held: a duplicate of a key claimed above must be refused (and this keeps `store` alive until here).
const probe = `${ROUTE}\u0000probe`
await store.claim(probe, TTL_MS)
const held = !(await store.claim(probe, TTL_MS))

const bytes = after - before
console.log(JSON.stringify({ count, claimed, held, bytes, mib: bytes / 2 ** 20, bytesPerId: bytes / count }))
