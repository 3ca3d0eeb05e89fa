/**
 * No program the gateway starts may outlive it, however the gateway dies (`kill -9` and OOM kills included,
 * which no handler in the gateway sees). So each program runs under a small watchdog: a node process that
 * leads the program's process group, holds an IPC channel to the gateway, and kills its whole group the moment
 * that channel closes. Otherwise it only passes things through: the program inherits the watchdog's stdin,
 * stdout and stderr (the gateway's pipes), and the watchdog exits as the program did.
 */

/**
 * The watchdog's source, run with `node -e` so it needs no file beside the compiled code. It reports a program
 * that cannot be started (ENOENT, EACCES) over the channel, since its own exit code could not say which.
 */
const SCRIPT = `
const { spawn } = require('node:child_process')
const [file, ...args] = process.argv.slice(1)
const killGroup = () => { try { process.kill(-process.pid, 'SIGKILL') } catch {} process.exit(137) }
process.on('disconnect', killGroup)
for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(sig, () => {})
const child = spawn(file, args, { stdio: 'inherit' })
child.on('error', (err) => {
  if (child.pid !== undefined) return
  process.off('disconnect', killGroup)
  process.send({ spawnError: { code: err.code, message: err.message } }, () => process.exit(127))
})
child.on('exit', (code, signal) => {
  process.off('disconnect', killGroup)
  if (signal) {
    for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.removeAllListeners(sig)
    process.kill(process.pid, signal)
  }
  process.exit(code ?? 1)
})
`

/** The argv that runs `file args...` under the watchdog. */
export function underWatchdog(file: string, args: readonly string[]): { file: string; args: string[] } {
  return { file: process.execPath, args: ['-e', SCRIPT, '--', file, ...args] }
}

/** A start failure the watchdog reported. */
export interface SpawnFailure {
  readonly spawnError: { readonly code?: string; readonly message: string }
}

/** True for the watchdog's message about a program that could not be started. */
export function isSpawnFailure(message: unknown): message is SpawnFailure {
  const failure = (message as Partial<SpawnFailure> | null)?.spawnError
  return typeof failure === 'object' && failure !== null && typeof failure.message === 'string'
}
