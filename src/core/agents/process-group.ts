/**
 * Ending a child together with everything it started. The child is spawned `detached`, so it leads a process
 * group of its own; signalling the negative pid reaches its children and grandchildren too, which
 * `child.kill()` would leave running (an agent CLI typically spawns helpers, shells and language servers).
 */
import type { ChildProcess } from 'node:child_process'

/** Whether children can lead their own process group here (POSIX); on Windows only the child itself is killed. */
export const GROUPS_SUPPORTED = process.platform !== 'win32'

/** Stops a spawned child's process group: politely first, then for good. */
export interface ProcessGroup {
  /** SIGTERM to the group now, SIGKILL after the grace period. Later calls do nothing. */
  stop(): void
  /** SIGKILL to whatever is left of the group (after the leader exited: no stragglers outlive a run). */
  reap(): void
}

/** Wraps `child` (spawned with `detached: true` where {@link GROUPS_SUPPORTED}) for stopping. */
export function processGroup(child: ChildProcess, graceMs: number): ProcessGroup {
  let stopping = false
  const signal = (sig: NodeJS.Signals) => {
    if (child.pid === undefined) return
    try {
      if (GROUPS_SUPPORTED) process.kill(-child.pid, sig)
      else child.kill(sig)
    } catch {
      // ESRCH: the group is already gone, which is what we wanted.
    }
  }
  return {
    stop() {
      if (stopping) return
      stopping = true
      signal('SIGTERM')
      // Unref'd: the escalation must not keep the gateway's event loop alive after everything has exited.
      setTimeout(() => signal('SIGKILL'), graceMs).unref()
    },
    reap() {
      if (GROUPS_SUPPORTED) signal('SIGKILL')
    },
  }
}
