/** Argument parsing of `hookpilot market`: node's parseArgs plus checks whose messages say what to change. */
import { parseArgs, type ParseArgsConfig } from 'node:util'
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
    throw new CliUsageError(`${fact.replace(/\.$/, '')} (see --help)`)
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
