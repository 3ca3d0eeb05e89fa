/**
 * HTTP for the chat delivery targets: one ky instance per target (no retries of its own: the dispatcher
 * retries), and the classification of every failure into a {@link DeliveryError} that says whether trying again
 * can help. Tokens never reach a message or a kept cause: Telegram's is in the URL path.
 */
import ky, { TimeoutError, type KyInstance, type Options } from 'ky'
import { DeliveryError } from '../../../core/errors.js'
import { parseRetryAfter } from '../../../util/retry-after.js'
import { parseJson } from '../../shared/json-body.js'
import { redact, safeCause } from '../../shared/redact.js'

/** Transport options every chat target accepts. */
export interface ChatHttpOptions {
  /** Replaces the global fetch (tests, proxies). Read at call time, so msw can patch the global one. */
  readonly fetch?: typeof globalThis.fetch | undefined
  /** One request's time limit; a timeout is a passing failure. Defaults to 30,000 ms. */
  readonly timeoutMs?: number | undefined
}

/** A platform's answer, read whole. */
export interface HttpReply {
  readonly status: number
  readonly ok: boolean
  readonly headers: Headers
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly body: unknown
}

/** Creates the client of one target. */
export function createChatClient(options: ChatHttpOptions = {}): KyInstance {
  return ky.create({
    fetch: (input, init) => (options.fetch ?? globalThis.fetch)(input, init),
    retry: 0,
    throwHttpErrors: false,
    timeout: options.timeoutMs ?? 30_000,
    headers: { 'user-agent': 'hookpilot' },
  })
}

/**
 * Sends one request and reads the answer; an answer of any status is returned for the platform to judge.
 * A network error throws a retryable DeliveryError. A timeout does not retry: the platform may have posted the
 * message and only its answer was lost, and posting the same answer twice is worse than not at all.
 */
export async function send(
  client: KyInstance,
  target: string,
  url: string,
  init: Options & { readonly signal: AbortSignal },
  secrets: readonly (string | undefined)[],
): Promise<HttpReply> {
  try {
    const response = await client(url, init)
    const text = await response.text()
    return { status: response.status, ok: response.ok, headers: response.headers, body: parseJson(text) }
  } catch (error) {
    const cause = safeCause(error, secrets)
    if (init.signal.aborted) throw new DeliveryError(target, 'aborted: the gateway is shutting down', { cause })
    const host = new URL(url).host
    if (error instanceof TimeoutError) {
      throw new DeliveryError(target, `no answer in time from ${host} (not retried: the message may have been posted)`, { cause })
    }
    throw new DeliveryError(target, `network error (${cause.message}) from ${host}`, { cause, retryable: true })
  }
}

/** What a platform's error answer says, for {@link httpFailure}. */
export interface FailureDetail {
  /** The platform's own description (`description`, `error`, `message`), redacted here. */
  readonly detail?: string | undefined
  /** A wait the platform put in its body (Telegram's `retry_after`), used when there is no `Retry-After` header. */
  readonly retryAfterMs?: number | undefined
  /** What to change, for permanent failures (`check platforms.telegram.token`). */
  readonly hint?: string | undefined
  readonly secrets: readonly (string | undefined)[]
}

/**
 * The DeliveryError for an answer that is not a success: 408, 429 and 5xx are passing failures (with the
 * `Retry-After` they carry); every other status is permanent (401, 403, 404, a bad chat id).
 */
export function httpFailure(target: string, reply: HttpReply, how: FailureDetail): DeliveryError {
  const retryable = reply.status === 408 || reply.status === 429 || reply.status >= 500
  const detail = how.detail === undefined ? '' : `: ${redact(how.detail, how.secrets).slice(0, 300)}`
  const hint = retryable || how.hint === undefined ? '' : ` (${how.hint})`
  const retryAfterMs = retryable ? (parseRetryAfter(reply.headers.get('retry-after')) ?? how.retryAfterMs) : undefined
  return new DeliveryError(target, `HTTP ${reply.status}${detail}${hint}`, { retryable, retryAfterMs })
}

/** The standard hint for a status, naming the key to check. */
export function statusHint(status: number, platform: string, credential: string): string | undefined {
  if (status === 400) return 'the request was refused: check the chat id'
  if (status === 401) return `the credentials were refused: check platforms.${platform}.${credential}`
  if (status === 403) return `not allowed: is the bot a member of the chat, with the right to post?`
  if (status === 404) return `not found: check the chat id and platforms.${platform}.api_base`
  return undefined
}

/** A base URL without its trailing slashes (`https://api.telegram.org/` → `https://api.telegram.org`). */
export function baseUrl(value: string): string {
  return value.replace(/\/+$/, '')
}
