/**
 * Errors thrown by the market client. Each has a stable `code`, the HTTP `status` and `url` when a response was
 * involved, the service's own `error` text as `serviceMessage`, and the underlying error as `cause`. Errors of ky
 * or valibot never escape: they are wrapped here.
 */

const BRAND = Symbol.for('hookpilot.MarketError')

/** Stable codes of {@link MarketError}; switch on these rather than on class names or messages. */
export type MarketErrorCode =
  | 'ERR_MARKET_NOT_FOUND'
  | 'ERR_MARKET_RATE_LIMITED'
  | 'ERR_MARKET_BAD_REQUEST'
  | 'ERR_MARKET_SHAPE'
  | 'ERR_MARKET_TIMEOUT'
  | 'ERR_MARKET_HTTP'
  | 'ERR_MARKET_USAGE'
  | 'ERR_MARKET_STREAM'
  | 'ERR_MARKET_CURSOR'

/** What a response told us, shared by every error that came from one. */
export interface MarketErrorDetails {
  readonly status?: number | undefined
  readonly url?: string | undefined
  readonly serviceMessage?: string | undefined
  /** The Data API v2's own error code (`rate_limited`, `invalid_request`, `request_timeout`, ...), when it sent one. */
  readonly serviceCode?: string | undefined
  /** The service's trace id (v2 body `trace_id`, or the `x-trace-id` header): quote it when reporting a failure. */
  readonly traceId?: string | undefined
  /** Whether the service said trying again may help (v2 body `retryable`). */
  readonly retryable?: boolean | undefined
  /** The query parameter the service blamed (v2 body `parameter`). */
  readonly parameter?: string | undefined
  readonly cause?: unknown
}

/**
 * Base class of every error the market client throws.
 *
 * @example
 * ```ts
 * try { await pm.markets.bySlug('no-such-market') } catch (err) {
 *   if (MarketError.is(err, 'ERR_MARKET_NOT_FOUND')) console.log('gone:', err.url)
 * }
 * ```
 */
export class MarketError extends Error {
  override readonly name: string = 'MarketError'
  readonly code: MarketErrorCode
  /** HTTP status of the answer, when there was one (a throttled answer can be a 200). */
  readonly status: number | undefined
  /** The URL that was requested, query included. */
  readonly url: string | undefined
  /** The service's own `error` text, when its body had one. */
  readonly serviceMessage: string | undefined
  /** The Data API v2's error code (`rate_limited`, `invalid_request`, `request_timeout`, ...); `undefined` on v1 and the other services. */
  readonly serviceCode: string | undefined
  /** The service's trace id of the failed request (v2 answers carry one), for a report to the service. */
  readonly traceId: string | undefined
  /** What the service said about trying again (v2 `retryable`); `undefined` when it did not say. */
  readonly retryable: boolean | undefined
  /** The query parameter the service blamed (v2 `parameter`), when it named one. */
  readonly parameter: string | undefined

  constructor(code: MarketErrorCode, message: string, details: MarketErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause })
    this.code = code
    this.status = details.status
    this.url = details.url
    this.serviceMessage = details.serviceMessage
    this.serviceCode = details.serviceCode
    this.traceId = details.traceId
    this.retryable = details.retryable
    this.parameter = details.parameter
    Object.defineProperty(this, BRAND, { value: true })
  }

  /** True for a MarketError from any copy of this package (instanceof fails across copies); optionally of one code. */
  static is(value: unknown, code?: MarketErrorCode): value is MarketError {
    if (typeof value !== 'object' || value === null) return false
    if ((value as Record<symbol, unknown>)[BRAND] !== true) return false
    return code === undefined || (value as MarketError).code === code
  }
}

/** The object does not exist: a 404, or a `200 null` answer to a lookup by slug or id. */
export class NotFoundError extends MarketError {
  override readonly name = 'NotFoundError'
  constructor(message: string, details?: MarketErrorDetails) {
    super('ERR_MARKET_NOT_FOUND', message, details)
  }
}

/**
 * The service throttled us (a 429, or a 200 whose body says "Too Many Requests") and the retries ran out.
 * `retryAfterMs` carries the service's `Retry-After` when it sent one.
 */
export class RateLimitedError extends MarketError {
  override readonly name = 'RateLimitedError'
  readonly retryAfterMs: number | undefined
  constructor(message: string, details?: MarketErrorDetails & { retryAfterMs?: number | undefined }) {
    super('ERR_MARKET_RATE_LIMITED', message, details)
    this.retryAfterMs = details?.retryAfterMs
  }
}

/** The service refused the parameters (400/422): a bad token id, side, history window or a too-deep offset. */
export class BadRequestError extends MarketError {
  override readonly name = 'BadRequestError'
  constructor(message: string, details?: MarketErrorDetails) {
    super('ERR_MARKET_BAD_REQUEST', message, details)
  }
}

/** One place where a body did not match the expected shape, by its dotted path (`markets.3.outcomes`). */
export interface ShapeIssue {
  readonly path: string
  readonly message: string
}

/** A body did not have the shape the client expects; `endpoint` and `issues` say where. */
export class ShapeMismatchError extends MarketError {
  override readonly name = 'ShapeMismatchError'
  readonly endpoint: string
  readonly issues: readonly ShapeIssue[]
  constructor(endpoint: string, issues: readonly ShapeIssue[], details?: MarketErrorDetails) {
    const lines = issues.slice(0, 5).map((i) => `  - ${i.path || '(body)'}: ${i.message}`)
    const more = issues.length > 5 ? `\n  ... and ${issues.length - 5} more` : ''
    super('ERR_MARKET_SHAPE', `Unexpected response shape from ${endpoint}:\n${lines.join('\n')}${more}`, details)
    this.endpoint = endpoint
    this.issues = issues
  }
}

/** A request took longer than the client's `timeout` (after retries). */
export class MarketTimeoutError extends MarketError {
  override readonly name = 'MarketTimeoutError'
  constructor(message: string, details?: MarketErrorDetails) {
    super('ERR_MARKET_TIMEOUT', message, details)
  }
}

/**
 * Any other failure: a 5xx after retries, a network error, a non-JSON body, an unexpected `error` body.
 * `retryAfterMs` carries the `Retry-After` of a 5xx (a 503 often has one).
 */
export class MarketHttpError extends MarketError {
  override readonly name = 'MarketHttpError'
  readonly retryAfterMs: number | undefined
  constructor(message: string, details?: MarketErrorDetails & { retryAfterMs?: number | undefined }) {
    super('ERR_MARKET_HTTP', message, details)
    this.retryAfterMs = details?.retryAfterMs
  }
}

/** The client was called wrongly (a market without token ids asked for its book, a bad bound); fix the call. */
export class MarketUsageError extends MarketError {
  override readonly name = 'MarketUsageError'
  constructor(message: string) {
    super('ERR_MARKET_USAGE', message)
  }
}

/** The market channel could not be reached again within the stream's `reconnect.maxAttempts`. */
export class MarketStreamError extends MarketError {
  override readonly name = 'MarketStreamError'
  constructor(message: string, details?: MarketErrorDetails) {
    super('ERR_MARKET_STREAM', message, details)
  }
}

/** Why a cursor walk stopped: a page said there was more but gave no cursor, or gave a cursor the walk had already used. */
export type CursorFault = 'missing' | 'repeated'

/**
 * A cursor walk could not go on safely: a page said there was more but gave no cursor (`missing`), or handed back a
 * cursor the walk had already followed (`repeated`, which is how an ignored cursor shows: the same page again,
 * forever). Thrown instead of stopping quietly (rows would be missing) or looping (the official client once restarted
 * from page one). `cursor` is the cursor of the last page read, to resume from once the service is fixed.
 */
export class MarketCursorError extends MarketError {
  override readonly name = 'MarketCursorError'
  readonly fault: CursorFault
  /** `data GET /v2/trades`: which list. */
  readonly endpoint: string
  /** The cursor that fetched the faulty page (`undefined` for the first page). */
  readonly cursor: string | undefined
  /** Pages read before the fault, the faulty one included. */
  readonly pages: number
  constructor(fault: CursorFault, endpoint: string, cursor: string | undefined, pages: number, details?: MarketErrorDetails) {
    const what =
      fault === 'missing'
        ? 'said it has more rows but gave no next cursor'
        : 'gave back a cursor this walk had already followed (the service ignored it, or is looping)'
    super('ERR_MARKET_CURSOR', `${endpoint}: page ${pages} of the walk ${what}; stopped instead of ${fault === 'missing' ? 'ending short' : 'looping'}`, details)
    this.fault = fault
    this.endpoint = endpoint
    this.cursor = cursor
    this.pages = pages
  }
}
