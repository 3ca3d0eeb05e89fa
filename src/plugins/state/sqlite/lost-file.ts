/**
 * What the backend does once `state.path` no longer names the file it writes (file-identity.ts): it says so
 * once, with what is kept and what to do; it stores no new job (the webhook is answered 503, `/ready` too), as
 * a 202 would promise a job that no later start can find; and, for a file deleted or replaced, it copies the
 * database it still has open to a rescue file when it closes, after the last job it ran was stored.
 */
import { existsSync, rmSync } from 'node:fs'
import { messageOf } from '../../../core/errors.js'
import type { Logger } from '../../../core/types.js'
import { fileIdentity, type FileLoss } from './file-identity.js'
import type { Db } from './open.js'

/** The watch over a served state file. */
export interface LostFileGuard {
  /** Why no job can be stored (also `/ready`'s reason), or undefined while the file is still its path's. */
  check(force?: boolean): string | undefined
  /** At close: copies the open database to the rescue file when the path lost it by deletion or replacement. */
  rescue(db: Db): Promise<void>
  /**
   * After the database closed: the -wal and -shm files a deleted database leaves at its path (SQLite keeps
   * them for a file that moved) are removed, as the next start would replay them into a new empty file.
   */
  closed(): void
}

/** Starts watching `path`, just opened. */
export function lostFileGuard(path: string, log: () => Logger): LostFileGuard {
  const identity = fileIdentity(path)
  let loss: FileLoss | undefined
  let rescuePath: string | undefined

  function noticed(found: FileLoss): void {
    loss = found
    if (found.kind === 'truncated') {
      log().error(`${found.problem}: webhooks are answered 503 from now on. The jobs in it are damaged or lost. Stop hookpilot, restore ${path} from a backup (or delete it with its -wal and -shm files to start empty), and start it again.`)
      return
    }
    rescuePath = `${path}.rescued-${new Date().toISOString().replace(/[:.]/g, '-')}`
    log().error(`${found.problem}: webhooks are answered 503 from now on (a job stored in the open file would be found by no later start). The jobs it holds are not lost yet: this process keeps running them, and when it stops (SIGTERM, Ctrl-C) it copies them to ${rescuePath}. Stop hookpilot, move that copy to ${path} (replacing what is there), and start it again. If it is killed instead (kill -9), the copy is not made and the jobs of the open file are lost.`)
  }

  return {
    check(force) {
      if (!loss) {
        const found = identity.check(force)
        if (found) noticed(found)
      }
      return loss && `${loss.problem}; restart hookpilot (its log says what is kept and how)`
    },
    async rescue(db) {
      if (rescuePath === undefined) return
      try {
        await db.backup(rescuePath)
        log().warn(`the jobs of the deleted or replaced state file are copied to ${rescuePath}: move it to ${path} before the next start to keep them`)
      } catch (err) {
        log().error(`cannot copy the jobs of the deleted or replaced state file to ${rescuePath}: they are lost`, { reason: messageOf(err) })
      }
    },
    closed() {
      if (loss?.kind !== 'deleted' || existsSync(path)) return
      for (const stale of [`${path}-wal`, `${path}-shm`]) rmSync(stale, { force: true })
    },
  }
}
