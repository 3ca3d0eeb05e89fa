/**
 * What `watchBooks` costs per frame without the network, steadier than `npm run bench:sdk`'s stream section on a
 * busy machine: 200,000 of the bench's price_change frames pushed into a fake socket's `onmessage` in bursts of 100,
 * each burst's book updates read, against a loop that only `JSON.parse`s the same frames; five alternating rounds.
 *
 *   npm run build && node bench/sdk-stream-cpu.js [dist folder, default ../dist]
 */
import { STREAM_TOKENS, priceChange, wireBook } from './sdk-fixtures.js'

const dist = process.argv[2] ?? new URL('../dist', import.meta.url).pathname
const { createMarketClient } = await import(`${dist}/sdk/index.js`)
const N = 200_000
const frames = Array.from({ length: N }, (_, i) => priceChange(i, String(Date.now())))
let socket
class FakeSocket {
  constructor() {
    socket = this
    setTimeout(() => this.onopen?.({}), 0)
  }
  send(text) {
    const dump = JSON.stringify(STREAM_TOKENS.map((id) => ({ event_type: 'book', ...wireBook(id) })))
    if (text.startsWith('{')) setTimeout(() => this.onmessage({ data: dump }), 0)
  }
  close() {}
}
// The SDK takes the global WebSocket where there is one.
globalThis.WebSocket = FakeSocket

async function watchBooksRound() {
  const books = createMarketClient({ wsUrl: 'ws://bench.invalid/ws' }).watchBooks(STREAM_TOKENS)
  const it = books[Symbol.asyncIterator]()
  for (let i = 0; i < STREAM_TOKENS.length; i++) await it.next()
  const t = process.cpuUsage()
  for (let i = 0; i < N; i += 100) {
    for (let j = i; j < i + 100; j++) socket.onmessage({ data: frames[j] })
    for (let j = 0; j < 100; j++) await it.next()
  }
  const u = process.cpuUsage(t)
  books.close()
  return (u.user + u.system) / N
}

function bareRound() {
  let n = 0
  const t = process.cpuUsage()
  for (let i = 0; i < N; i++) if (!Array.isArray(JSON.parse(frames[i]))) n++
  const u = process.cpuUsage(t)
  if (n !== N) throw new Error(`parsed ${n} of ${N} frames`)
  return (u.user + u.system) / N
}

for (let r = 0; r < 5; r++) {
  const bare = bareRound()
  const sdk = await watchBooksRound()
  console.log(`JSON.parse ${bare.toFixed(2)} us/frame  watchBooks ${sdk.toFixed(2)} us/frame  the client above JSON.parse ${(sdk - bare).toFixed(2)} us/frame`)
}
