/**
 * The sdk bench's servers, in a process of their own so their CPU is not the client's:
 *
 *   node bench/sdk-server.js http     a node:http server answering /book and /midpoint with fixed bodies
 *   node bench/sdk-server.js stream   a WebSocket market channel: the initial dump, then `rate` price_change
 *                                     frames a second (default 10,000) until told to stop
 *
 * Reports `{ type: 'ready', port }` over IPC; `{ type: 'stream', rate, seconds }` starts the frames and answers
 * `{ type: 'streamed', frames }`; exits on `{ type: 'stop' }` or when the parent goes away.
 */
import { createServer } from 'node:http'
import { WebSocketServer } from 'ws'
import { BOOK_BODY, MIDPOINT_BODY, STREAM_TOKENS, priceChange, wireBook } from './sdk-fixtures.js'

const kind = process.argv[2]
const send = (m) => process.send?.(m)
process.on('disconnect', () => process.exit(0))

const server = createServer((req, res) => {
  const body = req.url?.startsWith('/book') ? BOOK_BODY : req.url?.startsWith('/midpoint') ? MIDPOINT_BODY : undefined
  if (body === undefined) return res.writeHead(404).end('{"error":"no route"}')
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body)
})

const sockets = new Set()
if (kind === 'stream') {
  const wss = new WebSocketServer({ server, path: '/ws/market' })
  wss.on('connection', (ws) => {
    sockets.add(ws)
    ws.on('close', () => sockets.delete(ws))
    ws.on('message', (data) => {
      const text = data.toString()
      if (text === 'PING') return ws.send('PONG')
      ws.send(JSON.stringify(STREAM_TOKENS.map((id) => ({ event_type: 'book', ...wireBook(id) }))))
    })
  })
}

process.on('message', (m) => {
  if (m?.type === 'stop') process.exit(0)
  if (m?.type === 'stream') stream(m.rate, m.seconds)
})

/** Sends `rate` frames a second for `seconds`, in bursts every 10 ms, to every connection. */
function stream(rate, seconds) {
  const started = Date.now()
  let i = 0
  const timer = setInterval(() => {
    // Catch up to where the clock says we should be, so a late tick does not lower the rate.
    const due = Math.min(Math.floor(((Date.now() - started) / 1000) * rate), rate * seconds)
    const ts = String(Date.now())
    while (i < due) {
      const frame = priceChange(i++, ts)
      for (const ws of sockets) ws.send(frame)
    }
    if (i >= rate * seconds) {
      clearInterval(timer)
      send({ type: 'streamed', frames: i })
    }
  }, 10)
}

server.listen(0, '127.0.0.1', () => send({ type: 'ready', port: server.address().port }))
