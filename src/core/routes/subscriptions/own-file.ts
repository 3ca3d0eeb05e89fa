/**
 * Reading a file that decides who may reach the gateway (the subscriptions file holds routes and their
 * secrets, `INSECURE_NO_AUTH` included): only a regular file of the user the gateway runs as, writable by
 * nobody else, is read. A symbolic link (to /etc/passwd, or to a file someone else controls) is refused without
 * following it, and no refusal quotes anything of the file.
 */
import { constants } from 'node:fs'
import { open, type FileHandle } from 'node:fs/promises'

/** The file's text, or why it is missing or refused. */
export type OwnFileRead =
  | { readonly status: 'ok'; readonly text: string }
  | { readonly status: 'missing' }
  | { readonly status: 'invalid'; readonly reason: string }

// O_NOFOLLOW: a link is an error (ELOOP), not followed. O_NONBLOCK: a FIFO put in its place cannot hang the open.
const FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

/** Opens `path` without following a link, checks what it is and who owns it, then reads it. */
export async function openOwnFile(path: string): Promise<OwnFileRead> {
  let handle: FileHandle
  try {
    handle = await open(path, FLAGS)
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') return { status: 'missing' }
    if (code === 'ELOOP') return { status: 'invalid', reason: `it is a symbolic link, which is not followed: put the file itself at ${path}` }
    return { status: 'invalid', reason: `cannot read it (${code ?? 'error'})` }
  }
  try {
    const problem = ownershipProblem(await handle.stat(), path)
    if (problem !== undefined) return { status: 'invalid', reason: problem }
    return { status: 'ok', text: await handle.readFile('utf8') }
  } catch (err) {
    return { status: 'invalid', reason: `cannot read it (${(err as NodeJS.ErrnoException).code ?? 'error'})` }
  } finally {
    await handle.close()
  }
}

function ownershipProblem(info: { isFile(): boolean; uid: number; mode: number }, path: string): string | undefined {
  if (!info.isFile()) return 'it is not a regular file'
  const uid = process.getuid?.()
  // Where there are no owners and modes (Windows), the folder's permissions are all there is.
  if (uid === undefined) return undefined
  if (info.uid !== uid) return `it belongs to another user (uid ${info.uid}), not to the user the gateway runs as (uid ${uid}): chown it, or remove it`
  if ((info.mode & 0o022) !== 0) {
    return `group or others may write it (mode ${(info.mode & 0o777).toString(8).padStart(3, '0')}): run chmod 600 ${path}`
  }
  return undefined
}
