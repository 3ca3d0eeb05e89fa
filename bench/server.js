/**
 * One server under load, in a process of its own (started by run.js with an IPC channel):
 *
 *   node bench/server.js bare          a bare node:http server: reads the whole body, answers 202
 *   node bench/server.js gateway       hookpilot, logger silenced by a plugin
 *   node bench/server.js gateway-log   hookpilot with its default stdout logger (run.js sends stdout to /dev/null)
 *   node bench/server.js floor         the least any correct gateway does for these requests, hand-written on
 *                                      node:http: HMAC check (401), strict UTF-8 + JSON.parse, de-duplication
 *                                      in a Set (200), else 202. A reference for what the goals allow.
 *
 * It reports `{ type: 'ready', port }`, answers `{ type: 'usage' }` with its CPU time and heap, exits on
 * `{ type: 'stop' }` (so --cpu-prof can write its profile), and exits by itself when the parent goes away.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'
import { ROUTE, SECRET } from './payload.js'

const kind = process.argv[2]

async function startBare() {
  const answer = JSON.stringify({ status: 'accepted' })
  // Reading the body whole is the same work as the gateway's body reader.
  return listen(bodyServer((_req, res) => {
    res.writeHead(202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) })
    res.end(answer)
  }))
}

/** A node:http server that reads each request's whole body, then calls `handle(req, res, body)`. */
function bodyServer(handle) {
  return createServer((req, res) => {
    const chunks = []
    let size = 0
    req.on('data', (chunk) => {
      chunks.push(chunk)
      size += chunk.length
    })
    req.on('end', () => handle(req, res, Buffer.concat(chunks, size)))
  })
}

async function listen(server) {
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve))
  return server.address().port
}

async function startFloor() {
  const utf8 = new TextDecoder('utf-8', { fatal: true })
  const seen = new Set()
  const reply = (res, status, body) => {
    const text = JSON.stringify(body)
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
    res.end(text)
  }
  return listen(bodyServer((req, res, body) => {
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
    const id = req.headers['x-github-delivery']
    if (seen.has(id)) return reply(res, 200, { status: 'duplicate', delivery_id: id })
    seen.add(id)
    reply(res, 202, { status: 'accepted', route: ROUTE, event: req.headers['x-github-event'], delivery_id: id })
  }))
}

async function startGateway(quiet) {
  const { createGateway, defineDeliveryTarget, silentLogger } = await import('../dist/index.js')
  const config = {
    log_level: 'info',
    // The built-in echo runner on a short prompt: the agent's share of the work stays small.
    agent: { runner: 'echo' },
    platforms: {
      webhook: {
        extra: {
          host: '127.0.0.1',
          port: 0,
          rate_limit: 1_000_000_000, // high enough never to answer 429
          routes: {
            [ROUTE]: {
              secret: SECRET,
              events: ['pull_request'],
              prompt: 'PR #{number}: {pull_request.title}',
              deliver: 'bench-null',
            },
          },
        },
      },
    },
  }
  const plugins = [defineDeliveryTarget({ name: 'bench-null', async deliver() {} })]
  if (quiet) plugins.push({ name: 'quiet', logger: silentLogger })
  const gateway = await createGateway(config, plugins)
  const address = await gateway.listen({ host: '127.0.0.1', port: 0 })
  return address.port
}

process.on('disconnect', () => process.exit(0))
process.on('message', (message) => {
  if (message?.type === 'usage') {
    const cpu = process.cpuUsage()
    process.send({ type: 'usage', id: message.id, cpuMicros: cpu.user + cpu.system, heapUsed: process.memoryUsage().heapUsed })
  } else if (message?.type === 'stop') {
    process.exit(0)
  }
})

try {
  let port
  if (kind === 'bare') port = await startBare()
  else if (kind === 'gateway') port = await startGateway(true)
  else if (kind === 'gateway-log') port = await startGateway(false)
  else if (kind === 'floor') port = await startFloor()
  else throw new Error(`unknown server kind "${kind}" (bare, floor, gateway, gateway-log)`)
  process.send({ type: 'ready', port })
} catch (err) {
  process.send({ type: 'failed', reason: err instanceof Error ? err.stack ?? err.message : String(err) })
  process.exitCode = 1
  process.disconnect()
}
