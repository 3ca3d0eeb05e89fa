/** The streams and environment a subcommand uses; tests pass their own. */
export interface CliIO {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean }
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean }
  readonly env: NodeJS.ProcessEnv
  readonly cwd: string
  /** Lines typed to a long-running command (`market mock` takes commands there); absent: it takes none. */
  readonly stdin?: NodeJS.ReadableStream | undefined
}

/** A subcommand: takes its own arguments (after the subcommand name), returns the exit code. */
export type Subcommand = (args: readonly string[], io: CliIO) => Promise<number>

/** The real process's streams. */
export function processIO(): CliIO {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd(), stdin: process.stdin }
}
