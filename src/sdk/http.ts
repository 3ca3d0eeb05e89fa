/**
 * The transport of the market client: one ky instance per client, JSON in and out, errors mapped to the client's
 * own classes, valibot validation of every body, the retry loop of idempotent reads, the client's request budget
 * (src/sdk/budget/) before every attempt, and its concurrency bound around every attempt (so every fan-out, not
 * only batch chunks, is bounded). URLs are built in url.ts.
 */
import ky, { TimeoutError as KyTimeoutError } from 'ky'
import * as v from 'valibot'
import {
  BadRequestError,
  MarketHttpError,
  MarketTimeoutError,
  NotFoundError,
  RateLimitedError,
  MarketError,
  ShapeMismatchError,
  type MarketErrorDetails,
} from './errors.js'
import { backoffDelay } from '../util/backoff.js'
import { parseRetryAfter } from '../util/retry-after.js'
import type { RetryPolicy } from './retry.js'
import type { Gate, RequestBudget } from './budget/request-budget.js'
import { urlBuilder, type QueryInit } from './url.js'
import type { Service } from './service.js'

export { buildUrl, urlBuilder, type QueryInit } from './url.js'

/** Runs `fn` once a slot is free (a p-limit `LimitFunction`). */
type Limit = <R>(fn: () => Promise<R>) => Promise<R>

/** One request of the client, with the schema its answer must match. */
export interface RequestSpec<T> {
  readonly service: Service
  readonly path: string
  readonly query?: QueryInit | undefined
  /** POST only for the batch reads; they are idempotent, so they are retried like GETs. */
  readonly method?: 'GET' | 'POST'
  readonly body?: unknown
  readonly schema: v.GenericSchema<unknown, T>
  /**
   * A hand-rolled reader of the common shape, tried before the schema: it gives `undefined` for anything it does not
   * take, and whatever it takes the schema would accept and turn into the same value (the schema stays the truth).
   */
  readonly fast?: ((body: unknown) => T | undefined) | undefined
  readonly signal?: AbortSignal | undefined
  /** When set, a `200 null` answer becomes a NotFoundError with this message instead of a shape error. */
  readonly notFound?: string | undefined
}

/** Settings of the transport, resolved from the client's options. */
export interface TransportOptions {
  readonly urls: Readonly<Record<Service, string>>
  readonly fetch: typeof globalThis.fetch | undefined
  /** Ms per attempt, headers and body together, or `false` for none. */
  readonly timeoutMs: number | false
  readonly userAgent: string
  readonly retry: RetryPolicy
  /** Bounds the attempts in flight (the client's `concurrency`); a request waiting to retry holds no slot. */
  readonly limit: Limit
  /** The client's request budget; `undefined` when the client opted out (`rateLimit: false`). */
  readonly budget?: RequestBudget | undefined
}

/** Sends requests of one client. */
export type Transport = <T>(spec: RequestSpec<T>) => Promise<T>

/**
 * Builds the transport of one client. What it asks of ky is chosen by what each option costs per call on Node 20
 * (figures in docs/sdk.md, "Speed"): ky makes an AbortController, a Request and a clone of it on every call whatever
 * the options, so the client adds nothing on top of that which it can do without.
 */
export function createTransport(options: TransportOptions): Transport {
  // `globalThis.fetch` is read at each call, not here, so msw (which patches it) and test doubles apply.
  const fetchNow: typeof globalThis.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const api = ky.create({
    // The client's own loop below retries: on a call that succeeds it costs nothing, while ky's retry options and
    // hooks are merged and normalized again on every call. It also keeps a waiting retry out of the concurrency slots.
    retry: 0,
    throwHttpErrors: false,
    // ky's timer aborts the AbortController ky makes for every call anyway, so it is the cheapest timer there is;
    // one of our own would add a second controller. It covers the body too: see `readInto` below.
    timeout: options.timeoutMs,
    // No `headers`: ky would merge them into fresh Headers objects twice per call (five Headers in all); the
    // constant ones are set on the Request ky hands to fetch instead (see `readInto`).
  })
  const userAgent = options.userAgent
  const urlOf = {
    gamma: urlBuilder(options.urls.gamma),
    clob: urlBuilder(options.urls.clob),
    data: urlBuilder(options.urls.data),
  }

  async function once<T>(spec: RequestSpec<T>, url: string): Promise<T> {
    let text = ''
    // Given to ky as its `fetch`, so ky calls it inside its timeout: reading the body here puts the body under the
    // same timer as the headers, and ky's abort on timeout (which the Request's signal follows) ends a body that
    // stalls after the headers. A fetch that ignores the signal still cannot hang the call: ky's timeout rejects.
    const readInto = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
      // ky always hands over the Request it built; its headers are the caller's to change, as a beforeRequest hook
      // would (without a hook's per-call cost). A given fetch sees the same Request as when ky set them.
      if (input instanceof Request) {
        input.headers.set('user-agent', userAgent)
        input.headers.set('accept', 'application/json')
      } else {
        init = { ...init, headers: { 'user-agent': userAgent, accept: 'application/json' } }
      }
      const response = await fetchNow(input, init)
      text = spec.signal === undefined ? await response.text() : await readText(response, spec.signal)
      return response
    }
    let response: Response
    try {
      // The per-call options are only what this call needs: no headers or searchParams to merge, no signal (a
      // signal makes ky join it with its own through AbortSignal.any) unless the caller gave one.
      response =
        spec.method === undefined && spec.signal === undefined
          ? await api(url, { fetch: readInto })
          : await api(url, {
              fetch: readInto,
              method: spec.method ?? 'GET',
              ...(spec.body === undefined ? {} : { json: spec.body }),
              ...(spec.signal === undefined ? {} : { signal: spec.signal }),
            })
    } catch (cause) {
      if (spec.signal?.aborted) throw spec.signal.reason
      if (cause instanceof KyTimeoutError) {
        throw new MarketTimeoutError(`${endpointOf(spec)} did not answer within ${options.timeoutMs} ms`, { url, cause })
      }
      throw new MarketHttpError(`${endpointOf(spec)} failed: ${(cause as Error).message}`, { url, cause })
    }
    const body = parseJson(text)
    const message = serviceMessage(body)
    const traceHeader = response.headers.get('x-trace-id') ?? undefined
    if (response.ok && message === undefined && body !== NOT_JSON && !(body === null && spec.notFound !== undefined)) {
      const fast = spec.fast?.(body)
      if (fast !== undefined) return fast
      const result = v.safeParse(spec.schema, body)
      if (result.success) return result.output
      const issues = result.issues.map((i) => ({ path: v.getDotPath(i) ?? '', message: i.message }))
      const details = { status: response.status, url, serviceMessage: message, traceId: traceHeader }
      throw new ShapeMismatchError(endpointOf(spec), issues, { ...details, cause: new v.ValiError(result.issues) })
    }
    throw failure(spec, response, url, text, body, message)
  }

  const budget = options.budget

  /**
   * One attempt within the budget. Requests waiting on the same limits take turns (only the first watches the
   * clock), and the wait holds no concurrency slot, so a request waiting on `/trades` does not stall one to `/book`.
   * The tokens are taken inside the slot, just before sending, so a request cannot go out later than its tokens
   * say; if another request took them first, it waits again, keeping its turn.
   */
  async function budgeted<T>(spec: RequestSpec<T>, url: string, gate: Gate, b: RequestBudget): Promise<T> {
    const turn = gate.turn(spec.signal)
    // Most requests find the turn free: no promise to wait on then (a hot path for the order-book reads).
    const release = typeof turn === 'function' ? turn : await turn
    try {
      for (;;) {
        const wait = gate.waitMs()
        if (wait > 0) {
          await b.sleep(wait, spec.signal)
          continue
        }
        const result = await options.limit((): Promise<T | typeof NOT_YET> => {
          if (!gate.tryTake()) return Promise.resolve(NOT_YET)
          release()
          return once(spec, url)
        })
        if (result !== NOT_YET) return result
      }
    } finally {
      release()
    }
  }

  return async function request<T>(spec: RequestSpec<T>): Promise<T> {
    const url = urlOf[spec.service](spec.path, spec.query)
    const gate = budget?.gate(spec.service, spec.path)
    for (let attempt = 1; ; attempt++) {
      try {
        return await (budget === undefined || gate === undefined ? options.limit(() => once(spec, url)) : budgeted(spec, url, gate, budget))
      } catch (err) {
        if (spec.signal?.aborted) throw spec.signal.reason
        // Throttled although within the budget: the limits are lower than the budget thinks, so it learns.
        if (err instanceof RateLimitedError) gate?.slowDown()
        if (attempt > options.retry.limit || !isRetryable(err)) throw err
        const retryAfter = err instanceof RateLimitedError || err instanceof MarketHttpError ? err.retryAfterMs : undefined
        // The service's Retry-After if it gave one, else the doubling; capped either way.
        const wait = backoffDelay(options.retry, attempt, retryAfter)
        await options.retry.sleep(wait, spec.signal)
      }
    }
  }
}

/** `clob GET /book`: how errors name a request. Built only when one is thrown. */
function endpointOf(spec: RequestSpec<unknown>): string {
  return `${spec.service} ${spec.method ?? 'GET'} ${spec.path}`
}

/** The error of an answer that arrived but is not a usable body: a status, a service message, not JSON, null. */
function failure(
  spec: RequestSpec<unknown>,
  response: Response,
  url: string,
  text: string,
  body: unknown,
  message: string | undefined,
): MarketError {
  const endpoint = endpointOf(spec)
  const details = { status: response.status, url, serviceMessage: message, ...v2ErrorFields(body, response.headers.get('x-trace-id')) }
  if (!response.ok) return statusError(endpoint, details, text, response.headers.get('retry-after'))
  if (message !== undefined) {
    // The data service answers bursts with `200 {"error":"Too Many Requests"}`: still a throttle.
    if (/too many requests|rate limit/i.test(message)) {
      return new RateLimitedError(`${endpoint} throttled the client: ${message}`, details)
    }
    return new MarketHttpError(`${endpoint} answered with an error: ${message}`, details)
  }
  if (body === NOT_JSON) {
    return new MarketHttpError(`${endpoint} answered ${response.status} with a body that is not JSON`, details)
  }
  return new NotFoundError(spec.notFound ?? endpoint, details)
}

const NOT_JSON = Symbol('not JSON')
/** A budgeted attempt that found its tokens taken by another request once it had a slot. */
const NOT_YET = Symbol('not yet')

/**
 * The body as text, given up (and the stream cancelled, which closes the connection) when `signal` aborts, even if
 * the fetch in use ignores signals. The timeout needs nothing here: ky's own covers the body (see `readInto`).
 */
async function readText(response: Response, signal: AbortSignal): Promise<string> {
  const body: ReadableStream<Uint8Array> | null = response.body
  if (body === null) return ''
  const reader = body.getReader()
  let onAbort: (() => void) | undefined
  const stop = new Promise<never>((_, reject) => {
    const give = (reason: unknown): void => {
      reject(reason)
      reader.cancel(reason).catch(() => {})
    }
    if (signal.aborted) give(signal.reason)
    else signal.addEventListener('abort', (onAbort = () => give(signal.reason)), { once: true })
  })
  try {
    const chunks: Uint8Array[] = []
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), stop])
      if (done) break
      chunks.push(value)
    }
    return Buffer.concat(chunks).toString('utf8')
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort)
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return NOT_JSON
  }
}

/** The services put their message in `error` (`{"error": "..."}`, or `{"type": ..., "error": ...}` on 422). */
function serviceMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined
  const error = (body as Record<string, unknown>)['error']
  return typeof error === 'string' ? error : undefined
}

/**
 * The Data API v2's error body `{ error, code, retryable, trace_id, parameter? }` (and the `x-trace-id` header every
 * v2 answer carries): read leniently, since v1 and the other services send only `error`.
 */
function v2ErrorFields(body: unknown, traceHeader: string | null): Pick<MarketErrorDetails, 'serviceCode' | 'traceId' | 'retryable' | 'parameter'> {
  const o = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {}
  const text = (x: unknown): string | undefined => (typeof x === 'string' && x !== '' ? x : undefined)
  return {
    serviceCode: text(o['code']),
    traceId: text(o['trace_id']) ?? text(traceHeader),
    retryable: typeof o['retryable'] === 'boolean' ? o['retryable'] : undefined,
    parameter: text(o['parameter']),
  }
}

function statusError(endpoint: string, d: MarketErrorDetails, text: string, retryAfter: string | null): MarketError {
  const why = d.serviceMessage ?? (text.trim().slice(0, 120) || 'no body')
  const message = `${endpoint} answered ${d.status}: ${why}`
  if (d.status === 404) return new NotFoundError(message, d)
  if (d.status === 429) return new RateLimitedError(message, { ...d, retryAfterMs: parseRetryAfter(retryAfter) })
  if (d.status === 400 || d.status === 422) return new BadRequestError(message, d)
  const retryAfterMs = (d.status ?? 0) >= 500 ? parseRetryAfter(retryAfter) : undefined
  return new MarketHttpError(message, { ...d, retryAfterMs })
}

/** Throttles, timeouts, 5xx and network failures may pass on a later try; everything else will not. */
function isRetryable(err: unknown): boolean {
  // The v2 service says so itself: trust a `retryable: false` (a 503 it knows will not pass) over the status.
  if (err instanceof MarketError && err.retryable === false) return false
  if (err instanceof RateLimitedError || err instanceof MarketTimeoutError) return true
  if (!(err instanceof MarketHttpError)) return false
  return err.status === undefined || err.status >= 500
}
