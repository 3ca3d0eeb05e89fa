/**
 * Signing and posting a payload to a running gateway as GitHub would (`X-Hub-Signature-256` over the exact
 * bytes sent), for `hookpilot test` and `hookpilot send`: a sample or a file, edited by `--action`, `--head`
 * and `--set` (payload-edits.ts), under a new delivery id or the one `--delivery` names (GitHub's Redeliver).
 */
import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { isAbsolute, resolve } from 'node:path'
import type { Route } from '../core/types.js'
import { hmacSha256 } from '../plugins/shared/secure-compare.js'
import { parse, UsageError } from './args.js'
import type { CliIO, Subcommand } from './io.js'
import { applyPayloadEdits, hasEdits, type PayloadEdits } from './payload-edits.js'
import { SAMPLE_EVENT, samplePayload } from './sample-payload.js'
import { commandName } from './listening.js'
import { COMMON_OPTIONS, withContext, localBaseUrl, oneName, type CliContext } from './subscriptions-common.js'

/** The flags `test` and `send` share. */
const POST_OPTIONS = {
  payload: { type: 'string' },
  event: { type: 'string' },
  url: { type: 'string' },
  action: { type: 'string' },
  head: { type: 'string' },
  set: { type: 'string', multiple: true },
  delivery: { type: 'string' },
} as const

/** What GitHub's delivery ids look like, and more: visible ASCII, no spaces, at most 200 characters. */
const DELIVERY_ID = /^[\x21-\x7e]{1,200}$/

/** The help lines for {@link POST_OPTIONS}. */
export const POST_HELP = `      --payload FILE  JSON payload to send (default: a sample pull_request "opened" event)
      --event E       X-GitHub-Event header (default: the route's first event, else pull_request); without
                      --payload, a sample payload of that event (and of the route's first action) is sent
      --url URL       the gateway's base URL (default: where a running serve of this config listens,
                      else http://<host>:<port> from the config)
      --action A      the payload's action (action; object_attributes.action for GitLab merge requests),
                      e.g. --action synchronize
      --head SHA      the pull request's head: pull_request.head.sha and after (a push of that commit)
      --set PATH=V    sets a field by its dot path (pull_request.title=Fix, commits.0.id=...); V is read as
                      JSON when it is JSON (7, true, "7", {"a":1}), else as text; repeatable, applied in order
      --delivery ID   the X-GitHub-Delivery id (default: a new UUID); the id of an earlier send sends it
                      again, as GitHub's Redeliver does (the gateway answers "duplicate")`

/**
 * A command that posts one signed delivery (`test`, `send`): they differ only in which routes `find` looks at.
 * `find` returns the route to sign for, or undefined after saying why there is none.
 */
export function postCommand(
  command: string,
  help: string,
  what: string,
  find: (ctx: CliContext, name: string, io: CliIO) => Promise<Route | undefined>,
): Subcommand {
  return async (args, io) => {
    const { values, positionals } = parse(args, { ...COMMON_OPTIONS, ...POST_OPTIONS }, command)
    if (values.help) {
      io.stdout.write(help)
      return 0
    }
    const name = oneName(positionals, command, what)
    return withContext(values.config, io, async (ctx) => {
      const route = await find(ctx, name, io)
      if (!route) return 1
      const secret = route.secrets[0] ?? ''
      const unset = /\$\{([A-Za-z_][A-Za-z0-9_]*)/.exec(secret)
      if (unset) {
        // Admin commands read the config without requiring its variables; signing needs this one.
        io.stderr.write(`The secret of route "${name}" comes from \${${unset[1]}}, which is not set here: set it in this shell to sign with it.\n`)
        return 1
      }
      const delivery = values.delivery ?? randomUUID()
      if (!DELIVERY_ID.test(delivery)) throw new UsageError(`--delivery takes an id of 1 to 200 visible characters without spaces, such as the one an earlier send printed, not "${delivery}".`)
      const edits = { action: values.action, head: values.head, sets: values.set }
      const payload = edited(await loadPayload(values.payload, values.event, route, io, values.action), edits, io)
      return postSigned(localBaseUrl(ctx.config, values.url, ctx.configPath), name, secret, payload, delivery, io, commandName(io.env), values.config)
    })
  }
}

/** The body and event to send. */
interface Payload {
  readonly body: Buffer
  readonly event: string
}

/**
 * Reads `--payload` (which must be JSON) or takes a sample, and picks the event type: `--event`, else the
 * route's first event, so a test of a `push` route sends a push (and one of its actions, when it lists any).
 */
async function loadPayload(file: string | undefined, event: string | undefined, route: Route, io: CliIO, action: string | undefined): Promise<Payload> {
  if (event !== undefined && event.trim() === '') throw new UsageError('--event must not be empty.')
  const chosen = event ?? route.events[0] ?? SAMPLE_EVENT
  if (file === undefined) return { body: Buffer.from(JSON.stringify(samplePayload(chosen, action ?? route.actions[0]), null, 2)), event: chosen }
  let body: Buffer
  try {
    body = await readFile(isAbsolute(file) ? file : resolve(io.cwd, file))
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new UsageError(`cannot read --payload ${file}: ${code === 'ENOENT' ? 'no such file' : (err as Error).message}.`)
  }
  try {
    JSON.parse(body.toString('utf8'))
  } catch (err) {
    throw new UsageError(`--payload ${file} is not JSON: ${(err as Error).message}.`)
  }
  return { body, event: chosen }
}

/** The payload with `edits` applied (the bytes as read when there are none), warnings written to stderr. */
function edited(payload: Payload, edits: PayloadEdits, io: CliIO): Payload {
  if (!hasEdits(edits)) return payload
  const result = applyPayloadEdits(JSON.parse(payload.body.toString('utf8')), payload.event, edits)
  for (const warning of result.warnings) io.stderr.write(`${warning}\n`)
  return { body: Buffer.from(JSON.stringify(result.payload, null, 2)), event: payload.event }
}

/**
 * Posts `payload` to `<baseUrl>/webhooks/<route>` signed with `secret` under `delivery`, prints the status and
 * body, and returns the exit code: 0 for a 2xx answer, 1 otherwise or when the gateway cannot be reached.
 */
async function postSigned(baseUrl: string, route: string, secret: string, payload: Payload, delivery: string, io: CliIO, cmd: string, configArg: string): Promise<number> {
  const url = `${baseUrl}/webhooks/${route}`
  let res: Response
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'hookpilot-test',
        'x-github-event': payload.event,
        'x-github-delivery': delivery,
        // The same HMAC the gateway's verifier computes, so what this signs is what it checks.
        'x-hub-signature-256': `sha256=${hmacSha256(secret, payload.body).toString('hex')}`,
      },
      body: payload.body,
      signal: AbortSignal.timeout(15_000),
    })
  } catch (err) {
    io.stderr.write(unreachable(url, err, cmd, configArg))
    return 1
  }
  const text = await res.text()
  io.stdout.write(`POST ${url} (event ${payload.event}, delivery ${delivery})\n${res.status} ${res.statusText}\n${text}${text.endsWith('\n') ? '' : '\n'}`)
  if (res.status === 404) {
    io.stderr.write(
      `The gateway at ${baseUrl} has no route "${route}". A new subscription is picked up within a second; if it ` +
        `is still missing, "${cmd} list" marks it NOT SERVED and the gateway's log says why it was skipped.\n`,
    )
  } else if (res.status === 200 && text.includes('"status":"ignored"')) {
    // A 2xx, so the exit code is 0; but no agent ran, which is rarely what a test meant.
    io.stderr.write(`The route "${route}" does not accept event "${payload.event}", so no agent ran: pass --event (and --payload) with one it lists.\n`)
  }
  return res.ok ? 0 : 1
}

function unreachable(url: string, err: unknown, cmd: string, configArg: string): string {
  const cause = (err as { cause?: { code?: string } }).cause
  const code = cause?.code ?? (err as Error).name
  if (code === 'ECONNREFUSED') {
    return `The gateway is not running at ${url} (connection refused). Start it with "${cmd} serve --config ${configArg}", or pass --url if it listens elsewhere.\n`
  }
  if (code === 'TimeoutError') return `No answer from ${url} within 15 s: is something else listening on that port?\n`
  return `Cannot reach ${url}: ${code ?? (err as Error).message}.\n`
}
