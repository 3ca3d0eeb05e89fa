/**
 * The request every bench process agrees on: a real `pull_request` payload from @octokit/webhooks-examples
 * (the recorded example closest to 25,000 bytes, serialised as GitHub sends it: compact JSON, UTF-8), the
 * route it goes to, its secret and signatures. Deterministic, so the servers and the load generator can each
 * compute it without passing 25 KB around.
 */
import { createHmac } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

export const ROUTE = 'bench'
export const SECRET = 'bench-secret-not-a-real-one'
export const TARGET_BYTES = 25_000
/** Pull requests the `prs` scenario spreads its events over (issue 19, "Speed"). */
export const PULL_REQUESTS = 50

let cached
let cachedPrs

/** `{ body, event, action, bytes, signature, forged, example }` for the chosen example (`example` parsed). */
export function benchPayload() {
  if (cached) return cached
  const file = createRequire(import.meta.url).resolve('@octokit/webhooks-examples/api.github.com/index.json')
  const sets = JSON.parse(readFileSync(file, 'utf8'))
  const set = sets.find((s) => s.name === 'pull_request')
  if (!set) throw new Error('@octokit/webhooks-examples has no pull_request examples')
  let best
  for (const example of set.examples) {
    const body = Buffer.from(JSON.stringify(example), 'utf8')
    if (!best || Math.abs(body.length - TARGET_BYTES) < Math.abs(best.body.length - TARGET_BYTES)) {
      best = { body, action: String(example.action), example }
    }
  }
  cached = {
    example: best.example,
    body: best.body,
    event: 'pull_request',
    action: best.action,
    bytes: best.body.length,
    signature: sign(best.body, SECRET),
    // Well formed (sha256= and 64 hex digits) but made with another secret: the verifier does the whole HMAC.
    forged: sign(best.body, 'not-the-secret'),
  }
  return cached
}

/** `sha256=<hex HMAC-SHA256>`, GitHub's `X-Hub-Signature-256`. */
export function sign(body, secret) {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`
}

/**
 * The same event for {@link PULL_REQUESTS} pull requests of one repository: `number` and `pull_request.number`
 * set to 1, 2, ..., each body signed. A route keyed `{repository.full_name}#{pull_request.number}` puts them in
 * that many concurrency groups; the bodies differ from the single one by a few bytes at most.
 */
export function prPayloads() {
  if (cachedPrs) return cachedPrs
  const { example } = benchPayload()
  cachedPrs = Array.from({ length: PULL_REQUESTS }, (_, i) => {
    const body = Buffer.from(JSON.stringify({ ...example, number: i + 1, pull_request: { ...example.pull_request, number: i + 1 } }), 'utf8')
    return { body, signature: sign(body, SECRET) }
  })
  return cachedPrs
}
