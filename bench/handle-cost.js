/**
 * CPU per accepted event without sockets: hookpilot (pipeline, state backend, worker pool, default logger) as
 * bench/gateway.js builds it, driven through `gateway.handle()` by `connections` loops that each send one
 * request per turn of the event loop (as keep-alive connections do), for `seconds`. Steadier than req/s over
 * loopback on a busy machine; meant for comparing changes and for `--cpu-prof`.
 *
 *   node bench/handle-cost.js <sqlite|sqlite-full|memory|floor> [seconds=5] [connections=32] [busy|echo] > /dev/null
 *
 * With the busy agent it measures the acknowledgement alone; with echo, CPU runs until the queue is drained,
 * so the figure is each event's whole life (202, lease, agent, answer stored, delivery, done): the difference
 * is what the pool costs per job. `floor` runs the floor server's checks (HMAC, strict UTF-8, JSON.parse, a
 * Set) as a function. stdout carries the gateway's log; the result is one JSON line on stderr.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { benchConfig, benchPlugins } from './gateway.js'
import { ROUTE, SECRET, benchPayload } from './payload.js'

const [kind = 'sqlite', secondsArg = '5', connectionsArg = '32', agent = 'busy'] = process.argv.slice(2)
const seconds = Number(secondsArg)
const connections = Number(connectionsArg)
const payload = benchPayload()
const prefix = Math.random().toString(16).slice(2, 10)
let counter = 0
const request = () => ({
  method: 'POST',
  path: `/webhooks/${ROUTE}`,
  headers: {
    'content-type': 'application/json',
    'x-github-event': payload.event,
    'x-github-delivery': `${prefix}-0000-4000-8000-${(counter++).toString(16).padStart(12, '0')}`,
    'x-hub-signature-256': payload.signature,
  },
  body: payload.body,
})

function floorHandler() {
  const utf8 = new TextDecoder('utf-8', { fatal: true })
  const seen = new Set()
  return async (req) => {
    const header = req.headers['x-hub-signature-256']
    const presented = /^sha256=[0-9a-f]{64}$/.test(header) ? Buffer.from(header.slice(7), 'hex') : undefined
    const digest = createHmac('sha256', SECRET).update(req.body).digest()
    if (!presented || !timingSafeEqual(digest, presented)) return { status: 401 }
    const body = JSON.parse(utf8.decode(req.body))
    if (typeof body !== 'object' || body === null) return { status: 400 }
    const id = req.headers['x-github-delivery']
    if (seen.has(id)) return { status: 200 }
    seen.add(id)
    return { status: 202, body: JSON.stringify({ status: 'accepted', route: ROUTE, event: req.headers['x-github-event'], delivery_id: id }) }
  }
}

async function gatewayHandler(dir) {
  const { createGateway, defineStateBackend, parseConfig } = await import('../dist/index.js')
  const { stateBackend } = await import('../dist/plugins/builtins.js')
  const state = kind === 'memory' ? { driver: 'memory' } : { driver: 'sqlite', path: join(dir, 'state.db'), sync: kind === 'sqlite-full' ? 'full' : 'normal' }
  const config = benchConfig(state, agent)
  // The backend `state:` builds, built here too so the run can wait for its queue to drain.
  const backend = stateBackend(parseConfig(config), dir)
  const gateway = await createGateway(config, [...(await benchPlugins()), defineStateBackend(backend)])
  return { handle: (req) => gateway.handle(req), gateway, backend }
}

/** Resolves once no job is queued and none runs. */
async function drained(backend) {
  for (;;) {
    const { queued, running } = await backend.jobs.counts()
    if (queued + running === 0) return
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
}

const dir = mkdtempSync(join(os.tmpdir(), 'hookpilot-handle-'))
try {
  const { handle, gateway, backend } = kind === 'floor' ? { handle: floorHandler() } : await gatewayHandler(dir)
  const statuses = {}
  const loop = async (until) => {
    while (performance.now() < until) {
      // One request per loop per turn of the event loop, as a keep-alive connection's next request arrives in
      // a later poll: without it the loops would run in microtasks alone and starve timers and immediates.
      await new Promise((resolve) => setImmediate(resolve))
      const res = await handle(request())
      statuses[res.status] = (statuses[res.status] ?? 0) + 1
    }
  }
  const run = (ms) => Promise.all(Array.from({ length: connections }, () => loop(performance.now() + ms)))
  await run(1000) // warm-up
  if (backend && agent === 'echo') await drained(backend)
  for (const k of Object.keys(statuses)) delete statuses[k]
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  await run(seconds * 1000)
  const answeredMs = performance.now() - t0
  const backlog = backend ? await backend.jobs.counts() : undefined
  if (backend && agent === 'echo') await drained(backend)
  const cpu = process.cpuUsage(cpu0)
  const accepted = statuses[202] ?? 0
  process.stderr.write(JSON.stringify({
    kind, agent, connections, seconds, accepted, statuses, acceptedPerSecond: Math.round(accepted / (answeredMs / 1000)),
    cpuMicrosPerEvent: Number(((cpu.user + cpu.system) / accepted).toFixed(1)), queuedAtEnd: backlog?.queued,
    drainMs: agent === 'echo' ? Math.round(performance.now() - t0 - answeredMs) : undefined,
  }) + '\n')
  await gateway?.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
