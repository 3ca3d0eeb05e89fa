/**
 * A small argument parser on node's `util.parseArgs`, with errors that say what to change.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { suggest } from '../util/suggest.js'

/** Thrown for bad command-line input; the message is shown as is, with a hint to `--help`. */
export class UsageError extends Error {
  override readonly name = 'UsageError'
}

/** Options of one subcommand, as `util.parseArgs` takes them. */
export type OptionSpec = NonNullable<ParseArgsConfig['options']>

/** What {@link parse} returns: the typed option values and the positionals. */
export type Parsed<O extends OptionSpec> = ReturnType<typeof parseArgs<{ options: O; allowPositionals: true; strict: true }>>

/** Parses `args`, turning node's errors into {@link UsageError}s. */
export function parse<const O extends OptionSpec>(args: readonly string[], options: O, command: string): Parsed<O> {
  try {
    return parseArgs({ args: [...args], options, allowPositionals: true, strict: true })
  } catch (err) {
    const message = err instanceof Error ? err.message.replace(/\. To specify a positional.*$/s, '') : String(err)
    throw new UsageError(`${message}${optionHint(message, options)}\nRun "hookpilot ${command} --help" for the options.`)
  }
}

/** ` (did you mean --config?)` after node's "Unknown option '--confg'", when one of the options is close. */
export function optionHint(message: string, options: OptionSpec): string {
  const unknown = /^Unknown option '--([^'=]+)/.exec(message)?.[1]
  if (unknown === undefined) return ''
  const close = suggest(unknown, Object.keys(options))
  return close === undefined ? '' : ` (did you mean --${close}?)`
}

/** A whole number from a flag, or a UsageError naming the flag. */
export function toPort(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!/^\d+$/.test(value) || n > 65535) throw new UsageError(`${flag} takes a port number from 0 to 65535, not "${value}".`)
  return n
}
