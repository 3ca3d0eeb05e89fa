/**
 * What a caller may ask of the default logger: its level, its format and where its lines go. A file of its own
 * because both formats read it (logger.ts, the text one, which picks the format, and json-logger.ts): kept in
 * either, the two files would import each other.
 */

/** Log levels, least to most severe. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error'

/** `text` (one `key=value` line, for people) or `json` (one object a line, for log systems). */
export type LogFormat = 'text' | 'json'

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  readonly level?: LogLevel | undefined
  /** `text` by default. */
  readonly format?: LogFormat | undefined
  /** Where lines go (each without its line break); defaults to stdout. */
  readonly write?: ((line: string) => void) | undefined
  readonly now?: (() => Date) | undefined
}
