/**
 * The default logger. The text format, for people: one line per event, `time LEVEL message key=value ...`,
 * values quoted when they hold spaces or line breaks so an answer spanning many lines still makes one log
 * line. The JSON format, for log systems, is in json-logger.ts. Neither lets a control character through raw.
 */
import { createJsonLogger } from './json-logger.js'
import { textBlock, textMessage, textValue } from './text.js'
import type { LogFields, Logger } from '../types.js'
import type { LoggerOptions, LogLevel } from './logger-options.js'

const RANK: Readonly<Record<LogLevel, number>> = { debug: 10, info: 20, warn: 30, error: 40 }

/**
 * Creates the line logger the gateway uses by default.
 *
 * @example
 * ```ts
 * const log = createLogger({ level: 'debug', format: 'json' })
 * log.info('agent answer', { route: 'pr', delivery: 'abc' })
 * ```
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  if (options.format === 'json') return createJsonLogger(options)
  const threshold = RANK[options.level ?? 'info']
  const write = options.write ?? writeStdoutLine
  const now = options.now ?? (() => new Date())
  const emit = (level: LogLevel) => (message: string, fields?: LogFields) => {
    if (RANK[level] < threshold) return
    write(`${now().toISOString()} ${level.toUpperCase().padEnd(5)} ${textMessage(message)}${formatFields(fields)}`)
  }
  return { debug: emit('debug'), info: emit('info'), warn: emit('warn'), error: emit('error') }
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} }

function formatFields(fields: LogFields | undefined): string {
  if (!fields) return ''
  let out = ''
  let blocks = ''
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue
    const block = typeof value === 'string' ? textBlock(key, value) : undefined
    if (block) {
      out += block.inline
      blocks += block.block
    } else {
      out += ` ${key}=${textValue(String(value))}`
    }
  }
  return out + blocks
}

/**
 * Lines to stdout, one write per turn of the event loop instead of one per line: stdout to a file or a pipe is
 * a synchronous syscall per write in node, which under load costs more than formatting the line. One buffer for
 * the process (stdout is the process's), flushed on exit.
 */
let pending = ''
let scheduled = false
let hooked = false

function flushStdout(): void {
  scheduled = false
  if (pending === '') return
  const text = pending
  pending = ''
  process.stdout.write(text)
}

function writeStdoutLine(line: string): void {
  pending += line + '\n'
  if (!hooked) {
    hooked = true
    process.once('exit', flushStdout)
  }
  if (!scheduled) {
    scheduled = true
    setImmediate(flushStdout).unref()
  }
}
