/** The shape of one `hookpilot market` subcommand. */
import type { ParseArgsConfig } from 'node:util'
import type { MarketClient, MarketClientOptions } from '../../sdk/index.js'
import type { CliIO } from '../io.js'

/** What a subcommand runs with. */
export interface MarketEnv {
  readonly pm: MarketClient
  readonly io: CliIO
  readonly json: boolean
}

/** Parsed flags and positionals of one subcommand. */
export interface Parsed {
  readonly values: Readonly<Record<string, string | boolean | readonly (string | boolean)[] | undefined>>
  readonly positionals: readonly string[]
}

/** One subcommand: its help, its options, and a run that validates its input before any request. */
export type MarketCommand = ClientCommand | StandaloneCommand

interface CommandHelp {
  readonly summary: string
  readonly usage: string
  readonly help: string
  readonly options: NonNullable<ParseArgsConfig['options']>
}

/** A subcommand that asks the market services through a client (the real ones, or `--mock`). */
export interface ClientCommand extends CommandHelp {
  /** Validates the input and returns the work to do, so bad input fails before a server or client starts. */
  prepare(parsed: Parsed): (env: MarketEnv) => Promise<void>
  /** Client options of its own (the MCP server's request budget), over the base URLs; checked after `prepare`. */
  clientOptions?(parsed: Parsed): MarketClientOptions
}

/** A subcommand that runs on its own, with no client (`market mock` serves the services itself). */
export interface StandaloneCommand extends CommandHelp {
  /** Runs the command; resolves with its exit code. */
  run(parsed: Parsed, io: CliIO): Promise<number>
}

/** A string flag's value (parseArgs types them loosely). */
export function str(parsed: Parsed, name: string): string | undefined {
  const v = parsed.values[name]
  return typeof v === 'string' ? v : undefined
}

/** A boolean flag's value, `undefined` when absent. */
export function flag(parsed: Parsed, name: string): boolean | undefined {
  const v = parsed.values[name]
  return typeof v === 'boolean' ? v : undefined
}
