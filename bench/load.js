/**
 * The load generator, in a process of its own so it never shares an event loop with a server. run.js sends
 * `{ type: 'load', id, ports, scenario, seconds, connections }`; the answer is `{ type: 'result', id, ... }` with
 * the responses counted and every latency (ms, from autocannon's own per-response timer) so rounds can be
 * merged exactly.
 *
 * Scenarios (the same signed ~25 KB pull_request body in all of them):
 *   accepted    a new X-GitHub-Delivery id on every request
 *   duplicates  one delivery id for the whole run (the first request is accepted, the rest are duplicates)
 *   invalid     a well-formed X-Hub-Signature-256 made with the wrong secret
 *   prs         as accepted, each request the event of the next of 50 pull requests in turn (payload.js
 *               prPayloads: the number differs, and with it the signature)
 */
import { randomBytes } from 'node:crypto'
import autocannon from 'autocannon'
import { ROUTE, benchPayload, prPayloads } from './payload.js'

const payload = benchPayload()
// Ids are UUID-shaped, unique across runs of this process (one prefix) and cheap to make (a counter).
const prefix = randomBytes(4).toString('hex')
let counter = 0
const nextId = () => `${prefix}-0000-4000-8000-${(counter++).toString(16).padStart(12, '0')}`
const duplicateId = `${prefix}-dddd-4ddd-8ddd-dddddddddddd`

function headersFor(scenario) {
  return {
    'content-type': 'application/json',
    'user-agent': 'GitHub-Hookshot/bench',
    'x-github-event': payload.event,
    'x-github-delivery': scenario === 'duplicates' ? duplicateId : nextId(),
    'x-hub-signature-256': scenario === 'invalid' ? payload.forged : payload.signature,
  }
}

const prs = prPayloads()
let pr = 0

/** A new delivery of the next pull request's event, round-robin over the 50 (setupRequest's in-place edit). */
function nextPullRequest(req) {
  const { body, signature } = prs[pr++ % prs.length]
  req.body = body
  req.headers['x-github-delivery'] = nextId()
  req.headers['x-hub-signature-256'] = signature
  return req
}

function options(job) {
  // Several ports (the instances of redis-2): autocannon opens connection i to url[i % n], so the connections,
  // and with them the requests, are spread round-robin over the instances, as a load balancer would.
  const urls = job.ports.map((port) => `http://127.0.0.1:${port}/webhooks/${ROUTE}`)
  const base = {
    url: urls.length === 1 ? urls[0] : urls,
    method: 'POST',
    connections: job.connections,
    pipelining: 1,
    duration: job.seconds,
    timeout: 10,
    body: payload.body,
    headers: headersFor(job.scenario),
  }
  if (job.scenario === 'prs') return { ...base, requests: [{ setupRequest: nextPullRequest }] }
  if (job.scenario !== 'accepted') return base
  return {
    ...base,
    requests: [
      {
        setupRequest(req) {
          req.headers['x-github-delivery'] = nextId()
          return req
        },
      },
    ],
  }
}

function load(job) {
  return new Promise((resolve, reject) => {
    const latencies = []
    const statuses = {}
    const started = process.hrtime.bigint()
    const cpu = process.cpuUsage()
    const instance = autocannon(options(job), (err, result) => {
      if (err) return reject(err)
      const elapsedS = Number(process.hrtime.bigint() - started) / 1e9
      const used = process.cpuUsage(cpu)
      resolve({
        cpuMicros: used.user + used.system, // the loader's own CPU: on a machine with few cores it competes with the servers
        responses: latencies.length,
        elapsedS,
        latencies,
        statuses,
        errors: result.errors,
        timeouts: result.timeouts,
      })
    })
    instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
      latencies.push(responseTimeMs)
      statuses[statusCode] = (statuses[statusCode] ?? 0) + 1
    })
  })
}

process.on('disconnect', () => process.exit(0))
process.on('message', (message) => {
  if (message?.type !== 'load') return
  load(message).then(
    (result) => process.send({ type: 'result', id: message.id, ...result }),
    (err) => process.send({ type: 'result', id: message.id, failed: err instanceof Error ? err.message : String(err) }),
  )
})
process.send({ type: 'ready', bytes: payload.bytes, action: payload.action })
