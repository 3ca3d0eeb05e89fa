/**
 * Process groups a dead gateway left behind, as the worker kit handles them for every backend. A job records the process groups its try started (leader pid and
 * the leader's start time); the next start kills those groups before the job runs again. The start time guards
 * against pid reuse: a pid that now belongs to another program is left alone.
 */
import { readFileSync } from 'node:fs'
import { GROUPS_SUPPORTED } from '../../agents/process-group.js'

/** A process group a job started. */
export interface RecordedProcess {
  readonly pid: number
  /** The leader's start time as the kernel counts it (Linux); undefined where it cannot be read. */
  readonly start: string | undefined
}

/** The start time of `pid` (field 22 of /proc/<pid>/stat, in clock ticks since boot), where Linux tells it. */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return fields[19]
  } catch {
    return undefined
  }
}

/** What a job records when its try starts a process group. */
export function recordProcess(pid: number): RecordedProcess {
  return { pid, start: processStartTime(pid) }
}

/**
 * Kills each recorded group that is still the one recorded; resolves how many it killed. The group is the same
 * when its leader is the recorded process (same start time), or when the leader is gone: Linux never hands out
 * a pid that a live process group still uses, so a group with that id can only be the recorded one. A leader
 * pid now held by another process means the group ended and the pid was reused: it is left alone. Without a
 * recorded start time (not Linux) nothing is killed: a wrong guess would kill a stranger's processes, and the
 * watchdog every program runs under already ends its group when the gateway dies.
 */
export function killOrphans(processes: readonly RecordedProcess[]): number {
  if (!GROUPS_SUPPORTED) return 0
  let killed = 0
  for (const { pid, start } of processes) {
    if (start === undefined) continue
    const leader = processStartTime(pid)
    if (leader !== undefined && leader !== start) continue
    try {
      process.kill(-pid, 'SIGKILL')
      killed++
    } catch {
      // ESRCH: it ended by itself in the meantime.
    }
  }
  return killed
}

/** Reads the JSON list a store kept; anything malformed is nothing to kill. */
export function parseRecorded(text: string | null | undefined): RecordedProcess[] {
  if (!text) return []
  try {
    const list: unknown = JSON.parse(text)
    if (!Array.isArray(list)) return []
    return list.flatMap((item: unknown) => {
      const { pid, start } = (item ?? {}) as { pid?: unknown; start?: unknown }
      return typeof pid === 'number' && Number.isInteger(pid) && pid > 1
        ? [{ pid, start: typeof start === 'string' ? start : undefined }]
        : []
    })
  } catch {
    return []
  }
}
