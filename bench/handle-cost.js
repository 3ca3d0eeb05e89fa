/**
 * CPU per accepted event without sockets: the whole gateway (pipeline, state backend, worker pool, echo agent,
 * no-op delivery, default logger) driven through `gateway.handle()` by `concurrency` loops at once, then the
 * queue drained, so every figure counts each event's whole life: its 202 and its job run to `done`. Steadier
 * than req/s over loopback on a busy machine; meant for comparing changes and for `--cpu-prof`.
 *
 *   node bench/handle-cost.js <sqlite|sqlite-full|memory|floor> [seconds=5] [concurrency=32] [agent-concurrency=4] > /dev/null
 *
 * stdout carries the gateway's log (send it to /dev/null, as the HTTP bench does); the result is one JSON line
 * on stderr. `floor` runs the floor server's checks (HMAC, strict UTF-8, JSON.parse, a Set) as a function.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import { join } from 'node:path'
import { ROUTE, SECRET, benchPayload } from './payload.js'

const [kind = 'sqlite', secondsArg = '5', concurrencyArg = '32', agentArg = '4'] = process.argv.slice(2)
const seconds = Number(secondsArg)
const concurrency = Number(concurrencyArg)
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
  const { createGateway, defineDeliveryTarget, defineStateBackend, memoryState, sqliteState } = await import('../dist/index.js')
  // The backend built as `state:` would build it (agent.concurrency 4, agent.max_queue 1000), kept at hand
  // so the run can wait for its queue to drain.
  const bounds = { concurrency: Number(agentArg), maxQueue: 1000 }
  const state = kind === 'memory'
    ? memoryState(bounds)
    : sqliteState({ ...bounds, path: join(dir, 'state.db'), sync: kind === 'sqlite-full' ? 'full' : 'normal' })
  const gateway = await createGateway({
    agent: { runner: 'echo' },
    platforms: {
      webhook: {
        extra: {
          rate_limit: 1_000_000_000,
          routes: { [ROUTE]: { secret: SECRET, events: ['pull_request'], prompt: 'PR #{number}: {pull_request.title}', deliver: 'bench-null' } },
        },
      },
    },
  }, [defineDeliveryTarget({ name: 'bench-null', async deliver() {} }), defineStateBackend(state)])
  return { handle: (req) => gateway.handle(req), gateway, state }
}

const dir = mkdtempSync(join(os.tmpdir(), 'hookpilot-handle-'))
try {
  const { handle, gateway, state } = kind === 'floor' ? { handle: floorHandler() } : await gatewayHandler(dir)
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
  // Warm up, then measure: CPU and wall time from the first request to the last job finished.
  await Promise.all(Array.from({ length: concurrency }, () => loop(performance.now() + 1000)))
  for (const k of Object.keys(statuses)) delete statuses[k]
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  await Promise.all(Array.from({ length: concurrency }, () => loop(t0 + seconds * 1000)))
  const answeredMs = performance.now() - t0
  const backlog = state ? await state.jobs.counts() : undefined
  if (state) await idle(state)
  const cpu = process.cpuUsage(cpu0)
  const totalMs = performance.now() - t0
  const accepted = statuses[202] ?? 0
  const cpuMicros = cpu.user + cpu.system
  process.stderr.write(JSON.stringify({
    kind, concurrency, seconds, accepted, statuses, answeredPerSecond: accepted / (answeredMs / 1000),
    cpuMicrosPerEvent: cpuMicros / accepted, backlogAtEnd: backlog && backlog.queued + backlog.running, drainMs: totalMs - answeredMs,
  }) + '\n')
  await gateway?.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}

/** Resolves once no job is queued or running. */
async function idle(state) {
  for (;;) {
    const { queued, running } = await state.jobs.counts()
    if (queued + running === 0) return
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
}
