/**
 * The transport of the market client: one ky instance per client, JSON in and out, errors mapped to the client's
 * own classes, valibot validation of every body, the retry loop of idempotent reads, and the client's concurrency
 * bound around every attempt (so every fan-out, not only batch chunks, is bounded).
 */
import ky, { TimeoutError as KyTimeoutError } from 'ky'
import type { LimitFunction } from 'p-limit'
import * as v from 'valibot'
import {
  BadRequestError,
  MarketHttpError,
  MarketTimeoutError,
  NotFoundError,
  RateLimitedError,
  ShapeMismatchError,
  type MarketError,
  type MarketErrorDetails,
} from './errors.js'
import { backoffMs, parseRetryAfter, type RetryPolicy } from './retry.js'

/** The three services the client talks to. */
export type Service = 'gamma' | 'clob' | 'data'

/** Query parameters; arrays are sent as repeated keys (`id=1&id=2`), `undefined` is left out. */
export type QueryInit = Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>

/** One request of the client, with the schema its answer must match. */
export interface RequestSpec<T> {
  readonly service: Service
  readonly path: string
  readonly query?: QueryInit | undefined
  /** POST only for the batch reads; they are idempotent, so they are retried like GETs. */
  readonly method?: 'GET' | 'POST'
  readonly body?: unknown
  readonly schema: v.GenericSchema<unknown, T>
  readonly signal?: AbortSignal | undefined
  /** When set, a `200 null` answer becomes a NotFoundError with this message instead of a shape error. */
  readonly notFound?: string | undefined
}

/** Settings of the transport, resolved from the client's options. */
export interface TransportOptions {
  readonly urls: Readonly<Record<Service, string>>
  readonly fetch: typeof globalThis.fetch | undefined
  /** Ms per attempt, or `false` for none. */
  readonly timeoutMs: number | false
  readonly userAgent: string
  readonly retry: RetryPolicy
  /** Bounds the attempts in flight (the client's `concurrency`); a request waiting to retry holds no slot. */
  readonly limit: LimitFunction
}

/** Sends requests of one client. */
export type Transport = <T>(spec: RequestSpec<T>) => Promise<T>

/** Builds the transport of one client; ky is created once here, but reads `fetch` at call time so msw can patch it. */
export function createTransport(options: TransportOptions): Transport {
  const api = ky.create({
    fetch: (input, init) => (options.fetch ?? globalThis.fetch)(input, init),
    retry: 0,
    throwHttpErrors: false,
    timeout: options.timeoutMs,
    headers: { 'user-agent': options.userAgent, accept: 'application/json' },
  })

  async function once<T>(spec: RequestSpec<T>, url: string, endpoint: string): Promise<T> {
    const started = Date.now()
    let response: Response
    let text: string
    try {
      // A GET without a signal is most calls: it takes ky's shortest path (no per-call options to merge).
      response =
        spec.method === undefined && spec.signal === undefined
          ? await api(url)
          : await api(url, {
              method: spec.method ?? 'GET',
              ...(spec.body === undefined ? {} : { json: spec.body }),
              ...(spec.signal === undefined ? {} : { signal: spec.signal }),
            })
      // ky's timeout ends when the headers arrive: the body gets what is left of the same budget.
      const left = options.timeoutMs === false ? false : Math.max(1, options.timeoutMs - (Date.now() - started))
      text = await readText(response, left, spec.signal)
    } catch (cause) {
      if (spec.signal?.aborted) throw spec.signal.reason
      if (cause instanceof KyTimeoutError || cause === BODY_TIMEOUT) {
        throw new MarketTimeoutError(`${endpoint} did not answer within ${options.timeoutMs} ms`, { url, cause })
      }
      throw new MarketHttpError(`${endpoint} failed: ${(cause as Error).message}`, { url, cause })
    }
    const body = parseJson(text)
    const details = { status: response.status, url, serviceMessage: serviceMessage(body) }
    if (!response.ok) throw statusError(endpoint, details, text, response.headers.get('retry-after'))
    if (details.serviceMessage !== undefined) {
      // The data service answers bursts with `200 {"error":"Too Many Requests"}`: still a throttle.
      if (/too many requests|rate limit/i.test(details.serviceMessage)) {
        throw new RateLimitedError(`${endpoint} throttled the client: ${details.serviceMessage}`, details)
      }
      throw new MarketHttpError(`${endpoint} answered with an error: ${details.serviceMessage}`, details)
    }
    if (body === NOT_JSON) {
      throw new MarketHttpError(`${endpoint} answered ${response.status} with a body that is not JSON`, details)
    }
    if (body === null && spec.notFound !== undefined) throw new NotFoundError(spec.notFound, details)
    const result = v.safeParse(spec.schema, body)
    if (result.success) return result.output
    const issues = result.issues.map((i) => ({ path: v.getDotPath(i) ?? '', message: i.message }))
    throw new ShapeMismatchError(endpoint, issues, { ...details, cause: new v.ValiError(result.issues) })
  }

  return async function request<T>(spec: RequestSpec<T>): Promise<T> {
    const url = buildUrl(options.urls[spec.service], spec.path, spec.query)
    const endpoint = `${spec.service} ${spec.method ?? 'GET'} ${spec.path}`
    for (let attempt = 1; ; attempt++) {
      try {
        return await options.limit(() => once(spec, url, endpoint))
      } catch (err) {
        if (spec.signal?.aborted) throw spec.signal.reason
        if (attempt > options.retry.limit || !isRetryable(err)) throw err
        const retryAfter = err instanceof RateLimitedError || err instanceof MarketHttpError ? err.retryAfterMs : undefined
        const wait = backoffMs(options.retry, attempt, retryAfter)
        await options.retry.sleep(wait, spec.signal)
      }
    }
  }
}

/** Joins a base URL, a path and the query; arrays become repeated keys. */
export function buildUrl(base: string, path: string, query: QueryInit | undefined): string {
  const url = new URL(base.replace(/\/+$/, '') + path)
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue
    const values: readonly (string | number | boolean)[] = Array.isArray(value) ? value : [value as string]
    for (const item of values) url.searchParams.append(key, String(item))
  }
  return url.toString()
}

const NOT_JSON = Symbol('not JSON')
const BODY_TIMEOUT = new Error('the body did not arrive in time')

/**
 * The body as text, given up (and the stream cancelled, which closes the connection) after `ms` or on `signal`:
 * a server that sends its headers and then stalls must not hang a call forever.
 */
async function readText(response: Response, ms: number | false, signal: AbortSignal | undefined): Promise<string> {
  const body = response.body
  if (body === null) return ''
  if (ms === false && signal === undefined) return response.text()
  const reader = body.getReader()
  let timer: ReturnType<typeof setTimeout> | undefined
  let onAbort: (() => void) | undefined
  const stop = new Promise<never>((_, reject) => {
    const give = (reason: unknown): void => {
      reject(reason)
      reader.cancel(reason).catch(() => {})
    }
    if (ms !== false) timer = setTimeout(() => give(BODY_TIMEOUT), ms)
    if (signal !== undefined) signal.addEventListener('abort', (onAbort = () => give(signal.reason)), { once: true })
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
    clearTimeout(timer)
    if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort)
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
  if (err instanceof RateLimitedError || err instanceof MarketTimeoutError) return true
  if (!(err instanceof MarketHttpError)) return false
  return err.status === undefined || err.status >= 500
}
