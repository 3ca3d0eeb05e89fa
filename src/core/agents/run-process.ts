/**
 * Runs a program safely on behalf of the gateway: argv without a shell (payload text can never become shell
 * syntax), input on stdin, a timeout and an abort signal that end the whole process tree, a cap on output,
 * and a watchdog that ends the tree if the gateway itself dies. Every outcome, including "not found", is a
 * value: callers decide what a failure means for them.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { isAbsolute, resolve } from 'node:path'
import type { AgentSandbox } from '../types.js'
import { findProgram } from './find-program.js'
import { HeadBuffer, TailBuffer } from './output-buffer.js'
import { GROUPS_SUPPORTED, processGroup } from './process-group.js'
import { isSpawnFailure, underWatchdog } from './watchdog.js'

/** Options of {@link runProcess}. */
export interface RunProcessOptions {
  /** Written to the child's stdin, which is then closed. Without it the child sees an empty stdin. */
  readonly input?: string | Uint8Array | undefined
  /** Ends the process tree after this long; `timedOut` is then true. No limit when undefined. */
  readonly timeoutMs?: number | undefined
  /** Ends the process tree when aborted; `aborted` is then true. */
  readonly signal?: AbortSignal | undefined
  /** Most stdout bytes kept; past it the tree is ended and `truncated` is true. Defaults to 1 MiB. */
  readonly maxOutputBytes?: number | undefined
  /** How much of the end of stderr is kept (never a reason to stop). Defaults to 64 KiB. */
  readonly maxStderrBytes?: number | undefined
  /** Time between SIGTERM and SIGKILL when ending the tree. Defaults to 2,000 ms. */
  readonly killGraceMs?: number | undefined
  readonly cwd?: string | undefined
  /** The child's whole environment. Defaults to the gateway's own. */
  readonly env?: NodeJS.ProcessEnv | undefined
  /**
   * The account the program runs as (`agent.user`): node switches the child to this uid and gid and drops
   * its supplementary groups. Only a gateway running as root can (`resolveAgentUser` checks); the default is
   * the gateway's own.
   */
  readonly runAs?: { readonly uid: number; readonly gid: number } | undefined
  /**
   * The sandbox the program runs in (`agent.sandbox`): it sees a read-only root, `cwd` as its only writable
   * folder, its own `/proc`, `/tmp` and `/dev`, and an empty private HOME. Ending the run ends the sandbox with
   * everything in it.
   */
  readonly sandbox?: AgentSandbox | undefined
  /** Called with the process group's id once it exists (jobs record it for the cleanup after a crash). */
  readonly onSpawn?: ((pid: number) => void) | undefined
}

/**
 * How a run ended. Check `error` first (the program never ran), then `timedOut`, `aborted` and `truncated`,
 * then `code`.
 */
export interface RunProcessResult {
  /** Exit code; null when the process was ended by a signal or never started. */
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  /** The first `maxOutputBytes` of stdout, as UTF-8. */
  readonly stdout: string
  /** The last `maxStderrBytes` of stderr, as UTF-8. */
  readonly stderr: string
  readonly timedOut: boolean
  readonly aborted: boolean
  /** Stdout passed `maxOutputBytes`; the process tree was ended. */
  readonly truncated: boolean
  /** Why the program could not be started (`code` is `ENOENT` when it is not on PATH, `EACCES`, ...). */
  readonly error?: NodeJS.ErrnoException
}

/** The result of a run that never started. */
function notStarted(extra: { error: NodeJS.ErrnoException } | { aborted: true }): RunProcessResult {
  return { code: null, signal: null, stdout: '', stderr: '', timedOut: false, aborted: false, truncated: false, ...extra }
}

/**
 * Runs `argv[0]` with the arguments `argv[1..]` (never through a shell) and resolves with how it ended. It
 * never rejects. Processes the program leaves behind are killed when it exits.
 *
 * @example
 * ```ts
 * const result = await runProcess(['gh', 'pr', 'comment', '12', '--repo', 'o/r', '--body-file', '-'], {
 *   input: answer, timeoutMs: 30_000, signal,
 * })
 * if (result.error?.code === 'ENOENT') throw new Error('gh is not installed')
 * if (result.code !== 0) throw new Error(`gh failed: ${result.stderr}`)
 * ```
 */
export function runProcess(argv: readonly string[], options: RunProcessOptions = {}): Promise<RunProcessResult> {
  const [named, ...args] = argv
  // A program given by a relative path (./agent.sh) is the gateway's, not one in the child's own folder.
  const file = named !== undefined && options.cwd !== undefined && /[\\/]/.test(named) && !isAbsolute(named) ? resolve(named) : named
  if (file === undefined || file === '') {
    const error: NodeJS.ErrnoException = new Error('no program to run: argv is empty')
    error.code = 'ERR_INVALID_ARG_VALUE'
    return Promise.resolve(notStarted({ error }))
  }
  if (options.signal?.aborted) return Promise.resolve(notStarted({ aborted: true }))

  let program = { file, args }
  if (options.sandbox !== undefined) {
    // Inside the sandbox a missing program is only bwrap's exit status 1: say ENOENT, as an unsandboxed run does.
    if (findProgram(file, options.env) === undefined) return Promise.resolve(notStarted({ error: missing(file) }))
    const [wrapper = file, ...wrapped] = options.sandbox.wrap([file, ...args], options.cwd ?? process.cwd(), options.env ?? process.env)
    program = { file: wrapper, args: wrapped }
  }

  let child: ChildProcess
  // Where process groups exist, the program runs under a watchdog that leads its group and ends it if the
  // gateway dies; elsewhere (Windows) it runs directly. The sandbox runs under the watchdog, which keeps its
  // channel to the gateway outside.
  const run = GROUPS_SUPPORTED ? underWatchdog(program.file, program.args) : program
  try {
    child = spawn(run.file, run.args, {
      shell: false,
      detached: GROUPS_SUPPORTED,
      stdio: GROUPS_SUPPORTED ? ['pipe', 'pipe', 'pipe', 'ipc'] : ['pipe', 'pipe', 'pipe'],
      windowsHide: true,
      ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      ...(options.env === undefined ? {} : { env: options.env }),
      // The watchdog switches too: it has the IPC channel to the gateway, and a program may not share it.
      ...(options.runAs === undefined ? {} : { uid: options.runAs.uid, gid: options.runAs.gid }),
    })
  } catch (error) {
    // Synchronous failures: a NUL byte in an argument, an invalid cwd type, ...
    return Promise.resolve(notStarted({ error: error as NodeJS.ErrnoException }))
  }
  return supervise(child, options)
}

function missing(file: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`spawn ${file} ENOENT`)
  error.code = 'ENOENT'
  return error
}

function supervise(child: ChildProcess, options: RunProcessOptions): Promise<RunProcessResult> {
  const graceMs = options.killGraceMs ?? 2_000
  const stdout = new HeadBuffer(options.maxOutputBytes ?? 1024 * 1024)
  const stderr = new TailBuffer(options.maxStderrBytes ?? 64 * 1024)
  const group = processGroup(child, graceMs)
  const { signal } = options
  let timedOut = false
  let aborted = false

  return new Promise((resolve) => {
    const timers: NodeJS.Timeout[] = []
    const onAbort = () => {
      aborted = true
      group.stop()
    }
    let settled = false
    const finish = (code: number | null, sig: NodeJS.Signals | null, error?: NodeJS.ErrnoException) => {
      if (settled) return
      settled = true
      for (const timer of timers) clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      const truncated = stdout.overflowed
      const base = { code, signal: sig, stdout: stdout.text(), stderr: stderr.text(), timedOut, aborted, truncated }
      resolve(error === undefined ? base : { ...base, error })
    }

    if (options.timeoutMs !== undefined) {
      timers.push(
        setTimeout(() => {
          timedOut = true
          group.stop()
        }, options.timeoutMs),
      )
    }
    signal?.addEventListener('abort', onAbort, { once: true })

    child.stdout?.on('data', (chunk: Buffer) => {
      if (!stdout.push(chunk)) group.stop() // keep draining (and dropping) so the child never blocks on a full pipe
    })
    child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk))
    // EPIPE/ECONNRESET when the child exits without reading its input: its exit status tells the real story.
    child.stdin?.on('error', () => {})
    child.stdin?.end(options.input)

    // Spawn failures (ENOENT, EACCES) arrive here and no 'close' follows; later errors (a failed kill) do not matter.
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (child.pid === undefined) finish(null, null, error)
    })
    // The same failures of the program itself, as the watchdog reports them.
    child.on('message', (message: unknown) => {
      if (!isSpawnFailure(message)) return
      const error: NodeJS.ErrnoException = new Error(message.spawnError.message)
      if (message.spawnError.code !== undefined) error.code = message.spawnError.code
      finish(null, null, error)
    })
    if (child.pid !== undefined) options.onSpawn?.(child.pid)
    child.on('exit', (code, sig) => {
      group.reap()
      // A grandchild that left the group can hold stdout open forever: do not wait for 'close' past the grace.
      timers.push(
        setTimeout(() => {
          child.stdout?.destroy()
          child.stderr?.destroy()
          finish(code, sig)
        }, graceMs),
      )
    })
    child.on('close', (code: number | null, sig: NodeJS.Signals | null) => finish(code, sig))
  })
}
