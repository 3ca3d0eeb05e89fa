/**
 * The durable floor on Redis (issue 24), the baseline the `redis` rows are held to: the floor server's work (HMAC
 * over the raw bytes with a constant-time compare, strict UTF-8, JSON.parse), then one Lua call through ioredis
 * that takes the delivery's key (SET NX) and, when it was new, pushes the raw body (LPUSH), on the bench's own
 * redis-server (append-only file, `appendfsync everysec`, as the redis rows'). A key already taken answers 200
 * duplicate; the 202 is sent once Redis answered. It has no queue, no lifecycle and no limit: what any server
 * that keeps each event in Redis before answering cannot do without.
 *
 *   node bench/server.js redis-durable <url> <prefix>
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'
import { ROUTE, SECRET } from '../payload.js'

/** KEYS[1]: the delivery's key, KEYS[2]: the list. ARGV[1]: the raw body. Answers 1 when stored, 0 for a copy. */
const STORE = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', 3600) then return 0 end
redis.call('LPUSH', KEYS[2], ARGV[1])
return 1`

/** Starts the floor on `url` under `prefix`; resolves its port. */
export async function startRedisDurableFloor(url, prefix) {
  if (!url || !prefix) throw new Error('server.js redis-durable needs the URL and the prefix: node bench/server.js redis-durable <url> <prefix>')
  const { Redis } = await import('ioredis')
  const redis = new Redis(url, { maxRetriesPerRequest: 1 })
  redis.defineCommand('storeEvent', { numberOfKeys: 2, lua: STORE })
  await redis.ping()
  const utf8 = new TextDecoder('utf-8', { fatal: true })
  const reply = (res, status, body) => {
    const text = JSON.stringify(body)
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
    res.end(text)
  }
  const handle = async (req, res, body) => {
    const header = req.headers['x-hub-signature-256'] ?? ''
    const presented = /^sha256=[0-9a-f]{64}$/.test(header) ? Buffer.from(header.slice(7), 'hex') : undefined
    const digest = createHmac('sha256', SECRET).update(body).digest()
    if (!presented || !timingSafeEqual(digest, presented)) return reply(res, 401, { error: 'Invalid signature' })
    let payload
    try {
      payload = JSON.parse(utf8.decode(body))
    } catch {
      payload = undefined
    }
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return reply(res, 400, { error: 'Cannot parse body' })
    const id = String(req.headers['x-github-delivery'] ?? '')
    let stored
    try {
      stored = await redis.storeEvent(`${prefix}:key:${id}`, `${prefix}:events`, body)
    } catch {
      return reply(res, 503, { error: 'Store unavailable' })
    }
    if (stored === 0) return reply(res, 200, { status: 'duplicate', delivery_id: id })
    reply(res, 202, { status: 'accepted', route: ROUTE, event: req.headers['x-github-event'], delivery_id: id })
  }
  const server = createServer((req, res) => {
    const chunks = []
    let size = 0
    req.on('data', (chunk) => {
      chunks.push(chunk)
      size += chunk.length
    })
    req.on('end', () => void handle(req, res, Buffer.concat(chunks, size)))
  })
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve))
  return server.address().port
}
