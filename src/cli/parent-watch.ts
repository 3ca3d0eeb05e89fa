/**
 * `serve` ends when the process that started it is gone. A gateway started through npm (`npx --no-install hookpilot serve`,
 * `npm start`) whose npm was killed (a SIGTERM to npm, a SIGKILL, a closed terminal) was left running as an
 * orphan, holding its port and its jobs. The parent is watched by its pid: when it ends, the kernel gives the
 * gateway a new parent (init, or a subreaper), so `process.ppid` changes. That is checked once a second (no
 * pipe or signal the parent has to arrange, and nothing else a process that is killed with SIGKILL could do).
 *
 * It is on when npm started the gateway (npm sets `npm_command` in its children's environment), and with
 * `--exit-with-parent`; off otherwise, so a gateway started with `nohup ... &` keeps running after its shell.
 */

/** How often the parent's pid is compared. */
export const PARENT_POLL_MS = 1000

/** Whether `serve` watches its parent: `--exit-with-parent`, or started by npm. */
export function watchesParent(flag: boolean | undefined, env: NodeJS.ProcessEnv): boolean {
  return flag === true || (env['npm_command'] !== undefined && env['npm_command'] !== '')
}

/**
 * Calls `gone` once, with the parent's pid, when this process's parent changes. Returns the function that
 * stops watching. The timer does not keep the process alive.
 */
export function onParentGone(gone: (parentPid: number) => void, pollMs = PARENT_POLL_MS): () => void {
  const parent = process.ppid
  const timer = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(timer)
    gone(parent)
  }, pollMs)
  timer.unref()
  return () => clearInterval(timer)
}
