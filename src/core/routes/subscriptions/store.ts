/**
 * Reading and writing the subscriptions file. Writes are atomic (a temporary file in the same folder, then a
 * rename), so a running gateway never reads half a file, and the file is created mode 0600 because it holds
 * secrets. Changes go through {@link updateSubscriptions}, which holds a cross-process lock around
 * read-change-write so concurrent commands never lose each other's entries.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, open, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import type { HookpilotConfig } from '../../config/schema.js'
import { GatewayError } from '../../errors.js'
import { openOwnFile } from './own-file.js'
import { withFileLock, type FileLockOptions } from './lock.js'
import { emptySubscriptions, parseSubscriptionsText, type SubscriptionsFile } from './schema.js'

/** The file name used beside the config when `platforms.webhook.extra.subscriptions_file` is not set. */
export const DEFAULT_SUBSCRIPTIONS_FILE = '.subscriptions.json'

/** What reading the subscriptions file found. */
export type SubscriptionsRead =
  | { readonly status: 'missing' }
  | { readonly status: 'ok'; readonly file: SubscriptionsFile }
  | { readonly status: 'invalid'; readonly reason: string }

/**
 * Where a configuration keeps its subscriptions: `platforms.webhook.extra.subscriptions_file` (relative to
 * `baseDir`, the config file's folder), else `.subscriptions.json` in `baseDir`. Undefined when neither is
 * known (a gateway built from an in-memory configuration has no dynamic subscriptions unless it names a file).
 */
export function subscriptionsPath(config: HookpilotConfig, baseDir: string | undefined): string | undefined {
  const configured = config.platforms.webhook.extra.subscriptions_file
  if (configured !== undefined && configured !== '') return resolve(baseDir ?? process.cwd(), configured)
  return baseDir === undefined ? undefined : join(resolve(baseDir), DEFAULT_SUBSCRIPTIONS_FILE)
}

/**
 * Reads and parses the subscriptions file; a missing file and a broken one are results, not errors. A file
 * anyone but its owner could have written (a symbolic link, a file of another user, one writable by group or
 * others) is refused unread: its routes could open the gateway to anyone.
 */
export async function readSubscriptions(path: string): Promise<SubscriptionsRead> {
  const read = await openOwnFile(path)
  if (read.status !== 'ok') return read
  const parsed = parseSubscriptionsText(read.text)
  return parsed.ok ? { status: 'ok', file: parsed.file } : { status: 'invalid', reason: parsed.reason }
}

/**
 * Replaces the file's contents atomically, mode 0600. Prefer {@link updateSubscriptions}, which also locks.
 */
export async function writeSubscriptions(path: string, file: SubscriptionsFile): Promise<void> {
  const dir = dirname(path)
  await mkdir(dir, { recursive: true, mode: 0o700 })
  // Hidden and unique per writer; same folder, so the rename is atomic (no cross-device move).
  const name = basename(path)
  const temp = join(dir, `${name.startsWith('.') ? '' : '.'}${name}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`)
  try {
    const handle = await open(temp, 'wx', 0o600)
    try {
      await handle.writeFile(JSON.stringify(file, null, 2) + '\n')
      // On disk before the rename makes it visible: a crash leaves the old file or the new one, never half.
      await handle.sync()
    } finally {
      await handle.close()
    }
    await rename(temp, path)
  } catch (err) {
    await unlink(temp).catch(() => undefined)
    throw new GatewayError('ERR_SUBSCRIPTION', `Cannot write the subscriptions file ${path}: ${(err as Error).message}`, { cause: err })
  }
}

/**
 * Reads the file under a cross-process lock, lets `change` compute the new contents, and writes them
 * atomically. `change` returning `undefined` writes nothing. A broken file is refused rather than replaced,
 * so a typo in a hand edit never wipes the other subscriptions.
 *
 * @example
 * ```ts
 * await updateSubscriptions(path, (file) => ({ ...file, subscriptions: { ...file.subscriptions, pr: { secret } } }))
 * ```
 */
export async function updateSubscriptions<T>(
  path: string,
  change: (file: SubscriptionsFile) => { readonly file?: SubscriptionsFile | undefined; readonly result: T },
  options: FileLockOptions = {},
): Promise<T> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 })
  return withFileLock(`${path}.lock`, async () => {
    const read = await readSubscriptions(path)
    if (read.status === 'invalid') {
      throw new GatewayError('ERR_SUBSCRIPTION', `The subscriptions file ${path} is invalid (${read.reason}); fix or delete it first.`)
    }
    const { file, result } = change(read.status === 'ok' ? read.file : emptySubscriptions())
    if (file !== undefined) await writeSubscriptions(path, file)
    return result
  }, options)
}
