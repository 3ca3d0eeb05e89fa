/**
 * The JSON log format, for log systems: one object per line with `time` (ISO 8601), `level` (`info`, ...),
 * `msg`, and the fields as keys. pino writes it: it is what those systems expect, and its stdout destination
 * (sonic-boom, asynchronous) gathers the lines written while a write is under way into the next one, as the
 * text format's per-turn buffer does, and flushes what is left when the process exits.
 */
import { pino, type DestinationStream, type Logger as Pino } from 'pino'
import { mapStringFields } from './fields.js'
import { jsonText } from './text.js'
import type { LogFields, Logger } from '../types.js'
import type { LoggerOptions, LogLevel } from './logger-options.js'

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
    // Only the strings a JSON encoder leaves raw need a change (most lines: none).
    base[level](fields === undefined ? {} : mapStringFields(fields, jsonText), jsonText(message))
  }
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') }
}

// One destination for the process (stdout is the process's): two gateways must not interleave half lines.
let shared: DestinationStream | undefined
function stdout(): DestinationStream {
  shared ??= pino.destination({ dest: 1, sync: false })
  return shared
}
