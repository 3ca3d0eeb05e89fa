/**
 * Errors thrown by the gateway. Every error has a stable `code` that programs can switch on, a message that
 * says what happened and what to change, and keeps the underlying error as `cause`.
 */

const BRAND = Symbol.for('hookpilot.GatewayError')

/** Stable codes of {@link GatewayError}. */
export type GatewayErrorCode =
  | 'ERR_CONFIG'
  | 'ERR_LISTEN'
  | 'ERR_PLUGIN'
  | 'ERR_DELIVERY'
  | 'ERR_SUBSCRIPTION'
  | 'ERR_CLOSED'
  | 'ERR_STATE'
  | 'ERR_LEASE_LOST'
  | 'ERR_SUPERSEDED'
  | 'ERR_STATE_MISSING'

/** One problem found in a configuration, located by its dotted path (`platforms.webhook.extra.port`). */
export interface ConfigIssue {
  readonly path: string
  readonly message: string
}

/**
 * Base class of every error the gateway throws.
 *
 * @example
 * ```ts
 * try { await loadConfig('config.yaml') } catch (err) {
 *   if (GatewayError.is(err) && err.code === 'ERR_CONFIG') console.error(err.message)
 * }
 * ```
 */
export class GatewayError extends Error {
  override readonly name: string = 'GatewayError'
  readonly code: GatewayErrorCode

  constructor(code: GatewayErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    Object.defineProperty(this, BRAND, { value: true })
  }

  /** True for a GatewayError from any copy of this package (instanceof fails across copies). */
  static is(value: unknown): value is GatewayError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[BRAND] === true
  }
}

/** The configuration is invalid; `issues` lists every problem with its path. */
export class ConfigError extends GatewayError {
  override readonly name = 'ConfigError'
  readonly issues: readonly ConfigIssue[]
  /** The file the configuration was read from, when it was (named in the message too). */
  readonly source: string | undefined

  constructor(issues: readonly ConfigIssue[], options?: { cause?: unknown; source?: string | undefined }) {
    const where = options?.source ? ` in ${options.source}` : ''
    const lines = issues.map((i) => `  - ${i.path || '(root)'}: ${i.message}`)
    super('ERR_CONFIG', `Invalid configuration${where}:\n${lines.join('\n')}`, options)
    this.issues = issues
    this.source = options?.source
  }

  /**
   * True for a ConfigError from any copy of this package: a plugin built against another copy throws that
   * copy's class, which `instanceof` does not recognise.
   *
   * @example
   * ```ts
   * try { await setUpPlugin(audit, { fil: 'x' }) } catch (err) {
   *   if (ConfigError.is(err)) for (const issue of err.issues) console.error(issue.path, issue.message)
   * }
   * ```
   */
  static override is(value: unknown): value is ConfigError {
    return GatewayError.is(value) && value.code === 'ERR_CONFIG' && Array.isArray((value as ConfigError).issues)
  }
}

/** The server could not listen (port taken, address not available). */
export class ListenError extends GatewayError {
  override readonly name = 'ListenError'
  constructor(message: string, options?: { cause?: unknown }) {
    super('ERR_LISTEN', message, options)
  }
}

/**
 * A delivery failed. `retryable` says whether trying again can help (network, 5xx, 429); `retryAfterMs` carries
 * the sender's `Retry-After` when it gave one. The dispatcher does the retrying, so targets only classify.
 */
export class DeliveryError extends GatewayError {
  override readonly name = 'DeliveryError'
  readonly target: string
  readonly retryable: boolean
  readonly retryAfterMs: number | undefined

  constructor(
    target: string,
    message: string,
    options?: { cause?: unknown; retryable?: boolean | undefined; retryAfterMs?: number | undefined },
  ) {
    super('ERR_DELIVERY', `${target}: ${message}`, options)
    this.target = target
    this.retryable = options?.retryable ?? false
    this.retryAfterMs = options?.retryAfterMs
  }

  /**
   * True for a DeliveryError from any copy of this package: a target built against another copy throws that
   * copy's class, which `instanceof` does not recognise.
   */
  static override is(value: unknown): value is DeliveryError {
    return GatewayError.is(value) && value.code === 'ERR_DELIVERY' && typeof (value as DeliveryError).retryable === 'boolean'
  }
}

/** The message of anything thrown: an Error's own, else its text. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
