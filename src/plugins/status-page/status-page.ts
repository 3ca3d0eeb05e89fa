/**
 * A read-only page of the gateway's jobs on its own listener (`/status`): queue depth, running jobs and their
 * age, the last finished jobs, failed jobs grouped by reason. Off unless enabled, and only for the holder of its
 * token (a bearer header, or the login form's HttpOnly, SameSite=Strict cookie). It changes nothing: replaying
 * is `hookpilot jobs retry`. Every answer carries a strict Content-Security-Policy and is never cached.
 */
import type { GatewayResponse } from '../../core/http/responses.js'
import type { JobsView } from '../../core/jobs/lifecycle/jobs-view.js'
import type { Endpoint, EndpointRequest } from '../../core/http/endpoint.js'
import type { Clock } from '../../core/types.js'
import { loginHtml, STATUS_CSS, STATUS_HTML, STATUS_JS } from './assets.js'
import { statusAuth } from './auth.js'
import { loginBackoff } from './login-backoff.js'
import { jobsSnapshot } from './snapshot.js'

/** Options of {@link statusPage}. */
export interface StatusPageOptions {
  /** What a viewer must present: at least 16 characters, from the environment. */
  readonly token: string
  /** The gateway's jobs view, once it is known (undefined until the gateway observes its state). */
  readonly jobs: () => JobsView | undefined
  readonly now?: Clock | undefined
}

/** The page's endpoints. */
export interface StatusPage {
  readonly endpoints: readonly Endpoint[]
}

/** Scripts, styles, data and form posts from this origin only; no frames, no inline code, no other origin. */
const SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  // same-origin, not no-referrer: with no-referrer a browser posts the login form with `Origin: null`.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
} as const

/** A login form's body is one short field. */
const FORM_BYTES = 4_096

/**
 * Creates the page's endpoints.
 *
 * @example
 * ```ts
 * const page = statusPage({ token: process.env.HOOKPILOT_STATUS_TOKEN!, jobs: () => state.jobs })
 * // GET /status in a browser: the login form, then the page
 * ```
 */
export function statusPage(options: StatusPageOptions): StatusPage {
  const now = options.now ?? Date.now
  const auth = statusAuth(options.token, now)
  // A client without an address (gateway.handle() in-process) shares one entry: it is slowed down all the same.
  const backoff = loginBackoff({ now })
  const clientOf = (req: EndpointRequest) => req.clientAddress ?? ''
  /** Seconds a client held back by failed tries must wait, or undefined when its token may be checked now. */
  const heldBack = (req: EndpointRequest): number | undefined => {
    const wait = backoff.waitMs(clientOf(req))
    return wait > 0 ? Math.ceil(wait / 1000) : undefined
  }

  const guarded = (handle: () => Promise<GatewayResponse> | GatewayResponse, refused: () => GatewayResponse): Endpoint['handle'] =>
    async (req) => {
      const presented = auth.presented(req.headers)
      if (presented === 'session') return handle()
      if (presented === 'none') return refused()
      // A bearer token is a guess like a login's: the same wait, checked before the token is.
      const wait = heldBack(req)
      if (wait !== undefined) return tooManyTries(wait, 'application/json', JSON.stringify({ error: `Too many wrong tokens: try again in ${wait} s` }))
      if (presented === 'wrong-bearer') {
        backoff.failed(clientOf(req))
        return refused()
      }
      backoff.succeeded(clientOf(req))
      return handle()
    }

  return {
    endpoints: [
      { path: '/status', handle: guarded(() => answer(200, 'text/html; charset=utf-8', STATUS_HTML), () => answer(401, 'text/html; charset=utf-8', loginHtml())) },
      { path: '/status/app.js', handle: guarded(() => answer(200, 'text/javascript; charset=utf-8', STATUS_JS), unauthorized) },
      { path: '/status/app.css', handle: async () => answer(200, 'text/css; charset=utf-8', STATUS_CSS) },
      {
        path: '/status/jobs.json',
        handle: guarded(async () => {
          const view = options.jobs()
          if (!view) return answer(503, 'application/json', JSON.stringify({ error: 'The gateway has not opened its state yet' }))
          return answer(200, 'application/json', JSON.stringify(await jobsSnapshot(view, now())))
        }, unauthorized),
      },
      {
        path: '/status/login',
        formBytes: FORM_BYTES,
        async handle(req) {
          if (req.method !== 'POST') return answer(303, 'text/plain', '', { location: '/status' })
          // A form posted from another site is refused (SameSite keeps the cookie from it; this keeps its login out).
          if (!sameSite(req.headers)) return answer(403, 'text/plain', 'Forbidden')
          // Held back after failed tries: even the right token waits, so guessing during the wait gains nothing.
          const wait = heldBack(req)
          if (wait !== undefined) return tooManyTries(wait, 'text/html; charset=utf-8', loginHtml(`Too many wrong tokens: try again in ${wait} s.`))
          const token = new URLSearchParams(Buffer.from(req.body ?? new Uint8Array()).toString('utf8')).get('token') ?? ''
          if (!auth.matches(token)) {
            backoff.failed(clientOf(req))
            return answer(401, 'text/html; charset=utf-8', loginHtml('That is not the status token.'))
          }
          backoff.succeeded(clientOf(req))
          return answer(303, 'text/plain', '', { location: '/status', 'set-cookie': auth.cookie() })
        },
      },
    ],
  }
}

/** Whether a form came from this page's own origin (a browser sends `Origin` with a POST; other clients may not). */
function sameSite(headers: Readonly<Record<string, string>>): boolean {
  const origin = headers['origin']
  if (origin === undefined) return true
  try {
    return new URL(origin).host === headers['host']
  } catch {
    return false
  }
}

/** 429 for a client held back by failed tries, saying when to come back. */
function tooManyTries(seconds: number, type: string, body: string): GatewayResponse {
  return answer(429, type, body, { 'retry-after': String(seconds) })
}

function unauthorized(): GatewayResponse {
  return answer(401, 'application/json', JSON.stringify({ error: 'Unauthorized' }), { 'www-authenticate': 'Bearer' })
}

function answer(status: number, type: string, body: string, headers: Readonly<Record<string, string>> = {}): GatewayResponse {
  return { status, headers: { ...SECURITY_HEADERS, 'content-type': type, 'content-length': String(Buffer.byteLength(body)), ...headers }, body }
}
