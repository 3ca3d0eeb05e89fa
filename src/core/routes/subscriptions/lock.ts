/**
 * A cross-process lock on a file, so that two `hookpilot subscribe` runs at once cannot both read the old file
 * and each write it back without the other's entry. It is a lock file created with `O_EXCL` (atomic on local
 * file systems), holding the owner's pid and a random token; a lock whose owner died is broken.
 */
import { randomBytes } from 'node:crypto'
import { link, open, readFile, rename, stat, unlink } from 'node:fs/promises'
import { GatewayError } from '../../errors.js'

/** Options of {@link withFileLock}. */
export interface FileLockOptions {
  /** How long to wait for another holder before giving up. */
  readonly timeoutMs?: number | undefined
  /** A lock older than this is taken to be abandoned even if its pid is alive (pids are reused). */
  readonly staleMs?: number | undefined
}

/**
 * Runs `fn` while holding the lock `lockPath`, waiting for other holders first.
 *
 * @example
 * ```ts
 * await withFileLock('/etc/hookpilot/.subscriptions.json.lock', async () => { ... read, change, write ... })
 * ```
 */
export async function withFileLock<T>(lockPath: string, fn: () => Promise<T>, options: FileLockOptions = {}): Promise<T> {
  const token = `${process.pid}\n${randomBytes(8).toString('hex')}\n`
  await acquire(lockPath, token, options.timeoutMs ?? 10_000, options.staleMs ?? 30_000)
  try {
    return await fn()
  } finally {
    await release(lockPath, token)
  }
}

async function acquire(lockPath: string, token: string, timeoutMs: number, staleMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (let attempt = 0; ; attempt++) {
    try {
      const handle = await open(lockPath, 'wx', 0o600)
      try {
        await handle.writeFile(token)
      } finally {
        await handle.close()
      }
      return
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new GatewayError('ERR_SUBSCRIPTION', `Cannot create the lock file ${lockPath}: ${(err as Error).message}`, { cause: err })
      }
    }
    const seen = await readQuietly(lockPath)
    if (seen !== undefined && (await isStale(lockPath, seen, staleMs))) {
      await breakLock(lockPath, seen)
      continue
    }
    if (Date.now() > deadline) {
      throw new GatewayError(
        'ERR_SUBSCRIPTION',
        `Another hookpilot command has held ${lockPath} for over ${Math.round(timeoutMs / 1000)} s. ` +
          'If none is running, delete that file and try again.',
      )
    }
    // Jitter so that many waiters do not retry in lock step.
    await sleep(Math.min(100, 5 + attempt * 5) * (0.5 + Math.random()))
  }
}

async function release(lockPath: string, token: string): Promise<void> {
  // Only our own lock: had ours been broken as stale, the file now belongs to someone else.
  if ((await readQuietly(lockPath)) === token) await unlink(lockPath).catch(() => undefined)
}

async function isStale(lockPath: string, content: string, staleMs: number): Promise<boolean> {
  const pid = Number(content.split('\n')[0])
  // An empty file is a holder between creating and writing it: only age can make it stale.
  if (Number.isInteger(pid) && pid > 0 && content.endsWith('\n') && !isAlive(pid)) return true
  const info = await stat(lockPath).catch(() => undefined)
  return info !== undefined && Date.now() - info.mtimeMs > staleMs
}

/**
 * Moves the stale lock aside under a unique name (only one breaker can win that rename), then checks that what
 * it moved is what it judged stale; if a fresh lock slipped in between, it is put back (link fails rather than
 * overwrite a newer one).
 */
async function breakLock(lockPath: string, seen: string): Promise<void> {
  const aside = `${lockPath}.stale-${process.pid}-${randomBytes(4).toString('hex')}`
  try {
    await rename(lockPath, aside)
  } catch {
    return // someone else broke it or it was released: just try again
  }
  if ((await readQuietly(aside)) !== seen) await link(aside, lockPath).catch(() => undefined)
  await unlink(aside).catch(() => undefined)
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

async function readQuietly(path: string): Promise<string | undefined> {
  return readFile(path, 'utf8').catch(() => undefined)
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
