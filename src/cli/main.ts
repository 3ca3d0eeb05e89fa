#!/usr/bin/env node
/** The `hookpilot` executable: runs the command line and sets the exit code. */
import { main } from './run.js'

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code
  },
  (err: unknown) => {
    process.stderr.write(`hookpilot: unexpected error: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`)
    process.exitCode = 70
  },
)
