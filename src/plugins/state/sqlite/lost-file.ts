/**
 * What the backend does once `state.path` no longer names the file it writes (file-identity.ts): it says so
 * once, with what is kept and what to do; it stores no new job (the webhook is answered 503, `/ready` too), as
 * a 202 would promise a job that no later start can find; and, for a file deleted or replaced, it copies the
 * database it still has open to a rescue file at once (SQLite's backup, through the open handle), keeps that
 * copy current while it serves, and copies it a last time when it closes. Made only at close, the copy was
 * lost with every job in it when the process was killed instead (kill -9; issue 38, item 12).
 */
import { existsSync, renameSync, rmSync } from 'node:fs'
import { messageOf } from '../../../core/errors.js'
import type { Logger } from '../../../core/types.js'
import { fileIdentity, type FileLoss } from './file-identity.js'
import type { Db } from './open.js'

/** The watch over a served state file. */
export interface LostFileGuard {
  /**
   * Why no job can be stored (also `/ready`'s reason), or undefined while the file is still its path's. Once the
   * file is lost, a check also brings the rescue copy up to date when the database changed since the last one.
   */
  check(force?: boolean): string | undefined
  /** At close: the last copy of the open database to the rescue file, when the path lost it by deletion or replacement. */
  rescue(): Promise<void>
  /**
   * After the database closed: the -wal and -shm files a deleted database leaves at its path (SQLite keeps
   * them for a file that moved) are removed, as the next start would replay them into a new empty file.
   */
  closed(): void
}

/** The rescue copy is brought up to date at most this often while the gateway serves. */
const REFRESH_EVERY_MS = 1_000

/** Starts watching `path`, just opened as `db`. */
export function lostFileGuard(path: string, log: () => Logger, db: Db): LostFileGuard {
  const identity = fileIdentity(path)
  let loss: FileLoss | undefined
  let rescuePath: string | undefined
  /** The copy being made, if one is. */
  let copying: Promise<boolean> | undefined
  /** `total_changes()` when the last copy started: a copy is made again only when the database changed since. */
  let copiedAt = -1
  let copiedWhen = 0
  let copies = 0
  const changes = db.prepare('SELECT total_changes()').pluck()

  /**
   * Copies the open database to the rescue path, through a temporary file renamed over it: a copy cut short (the
   * process killed while it is made) never replaces the previous whole one.
   */
  function copy(): Promise<boolean> {
    if (copying) return copying
    const to = rescuePath
    if (to === undefined) return Promise.resolve(false)
    const partial = `${to}.partial`
    copiedAt = changes.get() as number
    copiedWhen = performance.now()
    copying = db.backup(partial).then(() => {
      renameSync(partial, to)
      copies++
      return true
    }, (err: unknown) => {
      rmSync(partial, { force: true })
      log().error(`cannot copy the jobs of the deleted or replaced state file to ${to}`, { reason: messageOf(err) })
      return false
    }).finally(() => {
      copying = undefined
    })
    return copying
  }

  function noticed(found: FileLoss): void {
    loss = found
    if (found.kind === 'truncated') {
      log().error(`${found.problem}: webhooks are answered 503 from now on. The jobs in it are damaged or lost. Stop hookpilot, restore ${path} from a backup (or delete it with its -wal and -shm files to start empty), and start it again.`)
      return
    }
    rescuePath = `${path}.rescued-${new Date().toISOString().replace(/[:.]/g, '-')}`
    log().error(`${found.problem}: webhooks are answered 503 from now on (a job stored in the open file would be found by no later start). The jobs it holds are not lost: this process copies them to ${rescuePath} now, keeps that copy current while it runs them, and copies them a last time when it stops. Stop hookpilot, move that copy to ${path} (replacing what is there; if hookpilot was killed, delete the ${path}-wal and ${path}-shm it left first), and start it again.`)
    void copy().then((done) => {
      if (done) log().warn(`the jobs of the deleted or replaced state file are copied to ${rescuePath}: they survive even a kill -9 now; move it to ${path} before the next start to keep them`)
    })
  }

  return {
    check(force) {
      if (!loss) {
        const found = identity.check(force)
        if (found) noticed(found)
      } else if (rescuePath !== undefined && copying === undefined && performance.now() - copiedWhen >= REFRESH_EVERY_MS && changes.get() !== copiedAt) {
        void copy()
      }
      return loss && `${loss.problem}; restart hookpilot (its log says what is kept and how)`
    },
    async rescue() {
      if (rescuePath === undefined) return
      await copying
      // The last copy, after the last job this process ran was stored.
      if (await copy()) log().warn(`the jobs of the deleted or replaced state file are copied to ${rescuePath}: move it to ${path} before the next start to keep them`)
      else if (copies > 0) log().error(`the last copy failed: ${rescuePath} holds the jobs as they were at its earlier copy`)
      else log().error(`the jobs of the deleted or replaced state file could not be copied to ${rescuePath}: they are lost`)
    },
    closed() {
      if (loss?.kind !== 'deleted' || existsSync(path)) return
      for (const stale of [`${path}-wal`, `${path}-shm`]) rmSync(stale, { force: true })
    },
  }
}
