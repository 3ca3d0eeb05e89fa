/**
 * The JSON log format, for log systems: one object per line with `time` (ISO 8601), `level` (`info`, ...),
 * `msg`, and the fields as keys. pino writes it: it is what those systems expect, and its stdout destination
 * (sonic-boom, asynchronous) gathers the lines written while a write is under way into the next one, as the
 * text format's per-turn buffer does, and flushes what is left when the process exits.
 */
import { pino, type DestinationStream, type Logger as Pino } from 'pino'
import { jsonText } from './log-text.js'
import type { LogFields, Logger } from './types.js'
import type { LoggerOptions, LogLevel } from './logger.js'

/** Creates a JSON-lines {@link Logger}; `options.write` receives each line without its newline. */
export function createJsonLogger(options: LoggerOptions = {}): Logger {
  const { write, now } = options
  const destination: DestinationStream = write === undefined ? stdout() : { write: (line) => write(line.endsWith('\n') ? line.slice(0, -1) : line) }
  const base: Pino<never, false> = pino(
    {
      level: options.level ?? 'info',
      base: null, // no pid or hostname: the fields are the gateway's own
      messageKey: 'msg',
      timestamp: now === undefined ? pino.stdTimeFunctions.isoTime : () => `,"time":"${now().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  )
  const emit = (level: LogLevel) => (message: string, fields?: LogFields) => {
    if (!base.isLevelEnabled(level)) return
    base[level](safeFields(fields), jsonText(message))
  }
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') }
}

/** The fields as they are unless a string needs an escape JSON does not make (most lines: none). */
function safeFields(fields: LogFields | undefined): LogFields {
  if (fields === undefined) return {}
  let copy: Record<string, string | number | boolean | undefined> | undefined
  for (const key of Object.keys(fields)) {
    const value = fields[key]
    if (typeof value !== 'string') continue
    const safe = jsonText(value)
    if (safe === value) continue
    copy ??= { ...fields }
    copy[key] = safe
  }
  return copy ?? fields
}

// One destination for the process (stdout is the process's): two gateways must not interleave half lines.
let shared: DestinationStream | undefined
function stdout(): DestinationStream {
  shared ??= pino.destination({ dest: 1, sync: false })
  return shared
}
