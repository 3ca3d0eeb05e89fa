/**
 * The floor's work on one request, shared by every floor server (bench/server.js floor and the durable floors
 * in this folder): what any correct gateway must do before it may acknowledge a webhook. A constant-time HMAC
 * check over the raw bytes (401), strict UTF-8 and JSON.parse into an object (400), de-duplication by delivery
 * id (200). Returns the answer to give, or `{ accept: id }` for a new delivery, which the caller acknowledges
 * (stores it first, for a durable floor).
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { SECRET } from '../payload.js'

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
