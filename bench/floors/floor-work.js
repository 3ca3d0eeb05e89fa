/**
 * The floor's work on one request, shared by every floor server (bench/server.js floor and the durable floors
 * in this folder): what any correct gateway must do before it may acknowledge a webhook. A constant-time HMAC
 * check over the raw bytes (401), strict UTF-8 and JSON.parse into an object (400), de-duplication by delivery
 * id (200). Returns the answer to give, or `{ accept: id }` for a new delivery, which the caller acknowledges
 * (stores it first, for a durable floor).
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { ROUTE, SECRET } from '../payload.js'

const utf8 = new TextDecoder('utf-8', { fatal: true })
const SIGNATURE = /^sha256=[0-9a-f]{64}$/

/** Checks `req` (its raw `body` read whole) against `seen`, the delivery ids kept so far. */
export function floorWork(req, body, seen) {
  const header = req.headers['x-hub-signature-256'] ?? ''
  const presented = SIGNATURE.test(header) ? Buffer.from(header.slice(7), 'hex') : undefined
  const digest = createHmac('sha256', SECRET).update(body).digest()
  if (!presented || !timingSafeEqual(digest, presented)) return { status: 401, body: { error: 'Invalid signature' } }
  let payload
  try {
    payload = JSON.parse(utf8.decode(body))
  } catch {
    payload = undefined
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return { status: 400, body: { error: 'Cannot parse body' } }
  const id = req.headers['x-github-delivery']
  if (seen.has(id)) return { status: 200, body: { status: 'duplicate', delivery_id: id } }
  return { accept: id }
}

/** Answers `res` with `body` as JSON. */
export function reply(res, status, body) {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  res.end(text)
}

/**
 * The request side shared by the durable floors: the floor's work, then every request accepted in one turn of
 * the event loop handed to `store(items)` together (group commit). `store` settles each item with
 * {@link committed} or {@link notCommitted}. A delivery id counts as seen from its acceptance (a copy that
 * arrives before the commit is a duplicate of it, as in hookpilot); one whose commit failed is forgotten.
 * Returns `handle(req, body)`, resolving `{ status, body }`.
 */
export function batchingFloor(store) {
  const seen = new Set()
  let batch = []
  const flush = () => {
    const items = batch
    batch = []
    store(items)
  }
  return (req, body) => {
    const outcome = floorWork(req, body, seen)
    if (outcome.accept === undefined) return Promise.resolve(outcome)
    seen.add(outcome.accept)
    if (batch.length === 0) setImmediate(flush)
    return new Promise((done) => batch.push({ id: outcome.accept, event: req.headers['x-github-event'], body, done, seen }))
  }
}

/** Answers an item of {@link batchingFloor} once its event is committed. */
export function committed(item) {
  item.done({ status: 202, body: { status: 'accepted', route: ROUTE, event: item.event, delivery_id: item.id } })
}

/** Answers an item whose commit failed (500), forgetting its delivery id. */
export function notCommitted(item, message) {
  item.seen.delete(item.id)
  item.done({ status: 500, body: { error: message } })
}

/** A floor's `handle(req, body)` as a node:http handler `(req, res, body)`. */
export function asHandler(handle) {
  return (req, res, body) => {
    void handle(req, body).then((answer) => reply(res, answer.status, answer.body))
  }
}
