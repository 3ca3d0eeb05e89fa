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
import { ROUTE } from '../payload.js'
import { floorWork, reply } from './floor-work.js'

/** KEYS[1]: the delivery's key, KEYS[2]: the list. ARGV[1]: the raw body. Answers 1 when stored, 0 for a copy. */
const STORE = `
if not redis.call('SET', KEYS[1], '1', 'NX', 'EX', 3600) then return 0 end
redis.call('LPUSH', KEYS[2], ARGV[1])
return 1`

/** Redis de-duplicates (SET NX), so the floor's in-process check is given no ids. */
const NONE_SEEN = new Set()

/** The floor on `url` under `prefix`, as a node:http handler `(req, res, body)`. */
export async function redisDurableFloor(url, prefix) {
  if (!url || !prefix) throw new Error('server.js redis-durable needs the URL and the prefix: node bench/server.js redis-durable <url> <prefix>')
  const { Redis } = await import('ioredis')
  const redis = new Redis(url, { maxRetriesPerRequest: 1 })
  redis.defineCommand('storeEvent', { numberOfKeys: 2, lua: STORE })
  await redis.ping()
  const handle = async (req, res, body) => {
    const outcome = floorWork(req, body, NONE_SEEN)
    if (!outcome.accept) return reply(res, outcome.status, outcome.body)
    const id = outcome.accept
    let stored
    try {
      stored = await redis.storeEvent(`${prefix}:key:${id}`, `${prefix}:events`, body)
    } catch {
      return reply(res, 503, { error: 'Store unavailable' })
    }
    if (stored === 0) return reply(res, 200, { status: 'duplicate', delivery_id: id })
    reply(res, 202, { status: 'accepted', route: ROUTE, event: req.headers['x-github-event'], delivery_id: id })
  }
  return (req, res, body) => void handle(req, res, body)
}
