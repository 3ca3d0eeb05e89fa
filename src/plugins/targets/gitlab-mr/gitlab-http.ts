/**
 * GitLab's REST API through plain `fetch`, one request at a time, with the token in `PRIVATE-TOKEN`. Plain fetch
 * rather than `@gitbeaker/rest`: the target makes eleven kinds of call, each answer is read defensively anyway
 * (json-body.ts), and a client library would be one more dependency to audit and keep current for that. What a
 * client library would add, retries, is the gateway's own here: a read that meets a passing failure (429, 5xx, the
 * network) is tried again after the shared backoff, honouring `Retry-After` (src/util); a write is not repeated in
 * place but fails retryable, and the dispatcher's retry runs the whole delivery again, which finds what the
 * earlier try wrote (every write the target makes is found again by its marker before it is made).
 */
import { DeliveryError } from '../../../core/errors.js'
import { backoffDelay } from '../../../util/backoff.js'
import { readBounded } from '../../../util/read-bounded.js'
import { parseRetryAfter } from '../../../util/retry-after.js'
import { field, parseJson, textField } from '../../shared/json-body.js'
import { redact, safeCause } from '../../shared/redact.js'
import { abortableSleep } from '../../../util/abortable-sleep.js'

/** The target's name, in every error it throws. */
export const TARGET = 'gitlab_mr'

/** Options of {@link gitlabHttp}. */
export interface GitlabHttpOptions {
  /** The API's root, `https://gitlab.com/api/v4` or a self-managed instance's `https://gitlab.example.com/api/v4`. */
  readonly apiUrl: string
  /** A project or group access token (or a personal one) with the `api` scope. */
  readonly token: string
  /** One request's time limit. */
  readonly timeoutMs: number
  /** Replaces the global fetch (tests, proxies). */
  readonly fetch?: typeof globalThis.fetch | undefined
  /** Tries of a read in all (default 3); a write is tried once. */
  readonly readTries?: number | undefined
  /** Waits between a read's tries; the first is this long, each next twice as long (default 500 ms, at most 10 s). */
  readonly baseDelayMs?: number | undefined
}

/** One call. */
export interface GitlabCall {
  readonly method: 'GET' | 'POST' | 'PUT'
  /** Below the API root: `/projects/42/merge_requests/7`. */
  readonly path: string
  readonly query?: Readonly<Record<string, string | number>> | undefined
  readonly body?: unknown
  /** What it does, for messages: `read the merge request`. */
  readonly doing: string
  /**
   * Read a 2xx answer as text of at most this many bytes (a repository file's raw content), not as JSON: a larger
   * one is not read past the limit ({@link GitlabReply.text}).
   */
  readonly maxBytes?: number | undefined
}

/** A 2xx answer's text of a call with `maxBytes`, or its size when larger (what GitLab's `X-Gitlab-Size` says, else what was read). */
export type BoundedText = { readonly kind: 'text', readonly text: string } | { readonly kind: 'too_large', readonly bytes: number }

/** GitLab's answer to a call, whatever its status (the caller judges the ones it expects, {@link failure} the rest). */
export interface GitlabReply {
  readonly status: number
  readonly headers: Headers
  /** The body as JSON, or undefined when it is not JSON (or was read as {@link text}). */
  readonly body: unknown
  /** With {@link GitlabCall.maxBytes}, a 2xx answer's text. */
  readonly text?: BoundedText | undefined
}

/** Sends calls to one GitLab. */
export interface GitlabHttp {
  /** Sends `call`; a network failure or a timeout throws a retryable DeliveryError (after a read's tries). */
  send(call: GitlabCall, signal: AbortSignal): Promise<GitlabReply>
  /** Sends `call` and returns the body of a 2xx answer; any other answer throws ({@link failure}). */
  ok(call: GitlabCall, signal: AbortSignal): Promise<unknown>
  /** The DeliveryError for an answer that is not what `call` expected. */
  failure(call: GitlabCall, reply: GitlabReply): DeliveryError
}

/** A GitLab API client (see the module's comment for why plain fetch). */
export function gitlabHttp(options: GitlabHttpOptions): GitlabHttp {
  const root = options.apiUrl.replace(/\/+$/, '')
  const host = new URL(root).host
  const secrets = [options.token]
  const tries = Math.max(1, options.readTries ?? 3)
  const backoff = { baseDelayMs: options.baseDelayMs ?? 500, maxDelayMs: 10_000 }

  async function once(call: GitlabCall, signal: AbortSignal): Promise<GitlabReply> {
    const url = new URL(`${root}${call.path}`)
    for (const [key, value] of Object.entries(call.query ?? {})) url.searchParams.set(key, String(value))
    const timeout = AbortSignal.timeout(options.timeoutMs)
    try {
      const response = await (options.fetch ?? globalThis.fetch)(url, {
        method: call.method,
        headers: { 'private-token': options.token, 'user-agent': 'hookpilot', ...(call.body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
        signal: AbortSignal.any([signal, timeout]),
      })
      if (call.maxBytes !== undefined && response.ok) return { status: response.status, headers: response.headers, body: undefined, text: await boundedText(response, call.maxBytes) }
      return { status: response.status, headers: response.headers, body: parseJson(await response.text()) }
    } catch (error) {
      const cause = safeCause(error, secrets)
      if (signal.aborted) throw new DeliveryError(TARGET, 'aborted: the gateway is shutting down', { cause })
      if (timeout.aborted) {
        throw new DeliveryError(TARGET, `${host} did not answer within ${options.timeoutMs} ms (trying to ${call.doing}); retried (raise platforms.gitlab.timeout_seconds if it keeps happening)`, { cause, retryable: true })
      }
      throw new DeliveryError(TARGET, `could not reach ${host} (trying to ${call.doing}): ${cause.message}`, { cause, retryable: true })
    }
  }

  async function send(call: GitlabCall, signal: AbortSignal): Promise<GitlabReply> {
    const attempts = call.method === 'GET' ? tries : 1
    for (let attempt = 1; ; attempt++) {
      let reply: GitlabReply | undefined
      let thrown: DeliveryError | undefined
      try {
        reply = await once(call, signal)
      } catch (error) {
        if (!DeliveryError.is(error) || !error.retryable) throw error
        thrown = error
      }
      const passing = thrown !== undefined || (reply !== undefined && (reply.status === 429 || reply.status >= 500))
      if (!passing || attempt >= attempts || signal.aborted) {
        if (thrown !== undefined) throw thrown
        return reply!
      }
      const asked = reply === undefined ? undefined : parseRetryAfter(reply.headers.get('retry-after'))
      await wait(backoffDelay(backoff, attempt, asked), signal)
    }
  }

  function failure(call: GitlabCall, reply: GitlabReply): DeliveryError {
    const said = redact(messageOf(reply.body), secrets).slice(0, 400)
    const doing = `trying to ${call.doing}`
    const { status } = reply
    if (status === 429 || status >= 500) {
      const retryAfterMs = parseRetryAfter(reply.headers.get('retry-after'))
      return new DeliveryError(TARGET, `GitLab answered ${status} (${doing}): ${said}; retried`, { retryable: true, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) })
    }
    if (status === 401) return new DeliveryError(TARGET, `GitLab refused the token (401, ${doing}): ${said}; check platforms.gitlab.token (a project or group access token with the api scope, not expired)`)
    if (status === 403) {
      return /insufficient_scope/.test(said)
        ? new DeliveryError(TARGET, `the token lacks the api scope (403 insufficient_scope, ${doing}); read_api is read-only: create the token with the api scope`)
        : new DeliveryError(TARGET, `GitLab refused (403, ${doing}): ${said}; the token's user needs the Developer role on the project`)
    }
    if (status === 404) return new DeliveryError(TARGET, `GitLab answered 404 (${doing}): the project or merge request is not found, or the token cannot see it; check deliver_extra.project and mr_iid`)
    return new DeliveryError(TARGET, `GitLab answered ${status} (${doing}): ${said}`)
  }

  return {
    send,
    failure,
    async ok(call, signal) {
      const reply = await send(call, signal)
      if (reply.status < 200 || reply.status > 299) throw failure(call, reply)
      return reply.body
    },
  }
}

/**
 * A file's text, read no further than `maxBytes`: GitLab names a file's size (`X-Gitlab-Size`) on its raw read, so
 * a larger one is refused before its body is read; without it, the read stops at the limit.
 */
async function boundedText(response: Response, maxBytes: number): Promise<BoundedText> {
  const said = Number(response.headers.get('x-gitlab-size') ?? response.headers.get('content-length') ?? Number.NaN)
  if (Number.isSafeInteger(said) && said > maxBytes) {
    await response.body?.cancel().catch(() => undefined)
    return { kind: 'too_large', bytes: said }
  }
  const read = await readBounded(response.body, (size) => (size > maxBytes ? size : undefined))
  return read.ok ? { kind: 'text', text: new TextDecoder().decode(read.bytes) } : { kind: 'too_large', bytes: read.refused }
}

/** GitLab's error text: `message` (a string, or an object of field errors), else `error`. */
export function messageOf(body: unknown): string {
  const message = field(body, 'message')
  if (typeof message === 'string') return message
  if (message !== undefined) return JSON.stringify(message)
  return textField(body, 'error') ?? 'no message'
}

/** Waits `ms`; a shutdown stops the wait with the target's error. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return abortableSleep(ms, signal).catch(() => {
    throw new DeliveryError(TARGET, 'aborted: the gateway is shutting down')
  })
}
