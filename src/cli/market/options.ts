/** Argument parsing of `hookpilot market`: node's parseArgs plus checks whose messages say what to change. */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { optionHint } from '../args.js'
import type { Parsed } from './command.js'

/** Bad input from the person at the terminal; shown as one line, exit code 2. */
export class CliUsageError extends Error {
  override readonly name = 'CliUsageError'
}

/** Options every subcommand accepts. */
export const COMMON = {
  json: { type: 'boolean' },
  mock: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options']

/** Parses `args` against `options` (plus the common ones), turning parseArgs' errors into usage errors. */
export function parse(args: readonly string[], options: NonNullable<ParseArgsConfig['options']>): Parsed {
  try {
    return parseArgs({ args: [...args], options: { ...COMMON, ...options }, allowPositionals: true, strict: true })
  } catch (err) {
    // parseArgs adds advice about '--' to its first sentence ("Unknown option '--x'. To specify ..."): keep the fact.
    const fact = (err as Error).message.split(/\.\s|\n/)[0] ?? 'bad arguments'
    throw new CliUsageError(`${fact.replace(/\.$/, '')}${optionHint(fact, { ...COMMON, ...options })} (see --help)`)
  }
}

/** Checks that `value` is one of `allowed`. */
export function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]): T | undefined {
  if (value === undefined) return undefined
  if ((allowed as readonly string[]).includes(value)) return value as T
  throw new CliUsageError(`--${flag} must be one of ${allowed.join(', ')} (got "${value}")`)
}

/** Checks that `value` is a whole number from 1 to `max`. */
export function count(flag: string, value: string | undefined, fallback: number, max = 10_000): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > max) {
    throw new CliUsageError(`--${flag} must be a whole number from 1 to ${max} (got "${value}")`)
  }
  return n
}

// A date, optionally with a time (a space or `T` between) and a `Z` or `±hh:mm` offset.
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:\d{2})?)?$/i

/**
 * Reads a point in time as unix seconds: unix seconds themselves, or a date such as `2026-05-01` or
 * `2026-05-01T12:00`, read as UTC unless it carries an offset (so the result does not depend on the machine's zone).
 */
export function instant(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) {
    const seconds = Number(text)
    // Milliseconds, or a compact date such as 20260501, would otherwise pass as a time far from the one meant.
    if (seconds >= 1e9 && seconds < 1e11) return seconds
  } else {
    const m = DATE_TIME.exec(text)
    if (m !== null) {
      const [, y, mo, d, time, zone] = m
      const day = new Date(Date.UTC(Number(y), Number(mo) - 1, Number(d)))
      const ms = Date.parse(`${y}-${mo}-${d}T${time ?? '00:00'}${zone?.toUpperCase() ?? 'Z'}`)
      // Date.parse rolls 2026-02-30 over to March; a day that does not exist is a typo.
      if (day.getUTCMonth() === Number(mo) - 1 && day.getUTCDate() === Number(d) && Number.isFinite(ms)) return Math.floor(ms / 1000)
    }
  }
  throw new CliUsageError(`--${flag} must be a date such as 2026-05-01 or 2026-05-01T12:00Z, or unix seconds (got "${value}")`)
}

/** The one positional a subcommand needs, or a message naming it. */
export function positional(positionals: readonly string[], name: string, usage: string): string {
  const [value, extra] = positionals
  if (value === undefined || value.trim() === '') throw new CliUsageError(`missing <${name}>: usage: ${usage}`)
  if (extra !== undefined) throw new CliUsageError(`unexpected argument "${extra}": usage: ${usage}`)
  return value
}

/** Fails on positionals given to a subcommand that takes none. */
export function noPositionals(positionals: readonly string[], usage: string): void {
  if (positionals[0] !== undefined) throw new CliUsageError(`unexpected argument "${positionals[0]}": usage: ${usage}`)
}
