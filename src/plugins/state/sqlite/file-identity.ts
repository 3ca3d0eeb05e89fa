/**
 * Whether `state.path` still names the file this process writes. SQLite keeps writing to an open file that
 * was deleted (or replaced by another at the same path), and a truncated one turns into damage only later:
 * without this check the gateway kept answering 202 for jobs no later start could find (19 of 20 lost). The
 * path is looked at (a stat, about a microsecond) by every commit that stores new jobs, before their 202s go out
 * (writer.ts), at every readiness probe, and by a timer once a second; once it no longer names the open file,
 * that is final until a restart.
 */
import { statSync, type Stats } from 'node:fs'

/** How `state.path` stopped naming the open file; what is kept and what to do differ. */
export type FileLoss =
  /** Deleted, or replaced by another file: the open file is intact, only unreachable. */
  | { readonly kind: 'deleted' | 'replaced'; readonly problem: string }
  /** Shorter than it was: pages the database needs are gone. */
  | { readonly kind: 'truncated'; readonly problem: string }

/** The identity of the open file, checked against its path. */
export interface FileIdentity {
  /** How the file was lost, or undefined while `state.path` is still it. `force` stats now, not from the last second's look. */
  check(force?: boolean): FileLoss | undefined
}

/** At most one look at the path per this many ms (the timer looks once a second anyway). */
const LOOK_EVERY_MS = 1_000

/** Remembers the file at `path` as it is now (just after it was opened) and watches the path. */
export function fileIdentity(path: string): FileIdentity {
  const opened = statSync(path)
  let largest = opened.size
  let lost: FileLoss | undefined
  let lookedAt = performance.now()

  function look(): FileLoss | undefined {
    let now: Stats
    try {
      now = statSync(path)
    } catch (err) {
      if ((err as { code?: unknown }).code !== 'ENOENT' && (err as { code?: unknown }).code !== 'ENOTDIR') return undefined
      return { kind: 'deleted', problem: `state.path ${path} was deleted while hookpilot was serving` }
    }
    if (now.ino !== opened.ino || now.dev !== opened.dev) {
      return { kind: 'replaced', problem: `state.path ${path} is another file now (it was replaced while hookpilot was serving)` }
    }
    // The file never shrinks by itself (no auto-vacuum; a checkpoint only writes pages back).
    if (now.size < largest) {
      return { kind: 'truncated', problem: `state.path ${path} was truncated while hookpilot was serving (from ${largest} to ${now.size} bytes)` }
    }
    largest = now.size
    return undefined
  }

  return {
    check(force = false) {
      if (lost) return lost
      const t = performance.now()
      if (!force && t - lookedAt < LOOK_EVERY_MS) return undefined
      lookedAt = t
      lost = look()
      return lost
    },
  }
}
