/**
 * What every plugin method receives besides its input (a `signal` and a `log`), the clock it may be given, and the
 * JSON a webhook body parses to: the kernel the other type modules build on.
 */

/** A JSON object as parsed from a webhook body. */
export type JsonObject = { [key: string]: JsonValue }
/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject

/** Extra data attached to a log line. Never put a secret or an unauthenticated body here. */
export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>

/** One line per event. The default writes `time LEVEL message key=value ...` to stdout. */
export interface Logger {
  debug(message: string, fields?: LogFields): void
  info(message: string, fields?: LogFields): void
  warn(message: string, fields?: LogFields): void
  error(message: string, fields?: LogFields): void
}

/** Milliseconds since the epoch; injectable so tests never sleep. */
export type Clock = () => number

/** What every plugin method receives besides its input. */
export interface PluginContext {
  readonly signal: AbortSignal
  readonly log: Logger
}
