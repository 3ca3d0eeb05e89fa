/**
 * A sandboxed agent run's own writable folder. The gateway's working folder (`agent.workdir`) is shared by
 * every job; a prompt-injected agent writing there could read what another job's agent left, or plant files
 * for the next. Inside the sandbox each run gets a fresh folder of its own, made before the run and removed with
 * all it holds after; the sandbox hides the shared folder around it, so no other run's folder is there. Runs
 * without a sandbox keep working in the shared folder, as they always have.
 */
import { chown, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AgentSandbox } from '../types.js'

/**
 * Runs `run` with the working folder of one agent run: with a sandbox, a new folder (mode 0700, `owner`'s when
 * the agent runs as another account) inside `parent` (the system's temporary folder when undefined), removed
 * when `run` settles; without one, `parent` itself.
 *
 * @example
 * ```ts
 * return inRunFolder(options.sandbox, options.cwd, options.runAs, (cwd) => runProcess(argv, { cwd, sandbox: options.sandbox }))
 * ```
 */
export async function inRunFolder<T>(
  sandbox: AgentSandbox | undefined,
  parent: string | undefined,
  owner: { readonly uid: number; readonly gid: number } | undefined,
  run: (cwd: string | undefined) => Promise<T>,
): Promise<T> {
  if (sandbox === undefined) return run(parent)
  // mkdtemp makes the folder new (nobody made it, or a link of that name, first) and private (0700).
  const folder = await mkdtemp(join(parent ?? tmpdir(), 'run-'))
  try {
    if (owner !== undefined) await chown(folder, owner.uid, owner.gid)
    return await run(folder)
  } finally {
    // The sandbox died with the run, so nothing writes here any more.
    await rm(folder, { recursive: true, force: true })
  }
}
