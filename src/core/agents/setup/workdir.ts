/**
 * The working directory of the programs the gateway runs (the agent, the openai runner's commands, gh): a
 * folder of their own, never the gateway's, where `.subscriptions.json` and config.yaml keep secrets an agent
 * would otherwise find by listing its folder. `agent.workdir` names one; by default each gateway makes a
 * private one (mode 0700) under the system's temporary folder and removes it when it closes. It is not a
 * sandbox: a program can still read any path its user can. With `agent.user`, the folder is that user's.
 */
import { randomBytes } from 'node:crypto'
import { chown, mkdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { isAbsolute, join, relative, resolve } from 'node:path'
import { ConfigError } from '../../errors.js'
import type { GatewayPlugin } from '../../plugin-api/gateway-plugin.js'
import type { AgentUser } from '../../types.js'

/** A working directory and the plugin that makes it (at start) and removes the one it made (at close). */
export interface AgentWorkdir {
  readonly path: string
  readonly plugin: GatewayPlugin
}

/**
 * The working directory for `configured` (`agent.workdir`, relative to `baseDir`), or a fresh private one.
 * Throws a ConfigError when the configured folder holds one of `keepOut` (the config's folder, the
 * subscriptions file).
 */
export function agentWorkdir(configured: string | undefined, baseDir: string, keepOut: readonly string[], owner?: AgentUser): AgentWorkdir {
  // The agent's own folder is its account's when it runs as another user (agent.user): private to it.
  const own = async (path: string) => void (owner && (await chown(path, owner.uid, owner.gid)))
  if (configured === undefined || configured.trim() === '') {
    const path = join(tmpdir(), `hookpilot-agent-${process.pid}-${randomBytes(6).toString('hex')}`)
    return {
      path,
      plugin: {
        name: 'agent-workdir',
        // Not recursive: the folder must be new, so nobody else made it (or a link of that name) first.
        start: async () => {
          await mkdir(path, { mode: 0o700 })
          await own(path)
        },
        close: () => rm(path, { recursive: true, force: true }),
      },
    }
  }
  const path = resolve(baseDir, configured)
  const holds = keepOut.find((inside) => contains(path, inside))
  if (holds !== undefined) {
    throw new ConfigError([{
      path: 'agent.workdir',
      message: `${path} holds ${holds}, whose secrets an agent would find there: give the agent a folder of its own (or leave the key out for a private temporary one)`,
    }])
  }
  const start = async () => {
    await mkdir(path, { recursive: true, mode: 0o700 })
    await own(path)
  }
  return { path, plugin: { name: 'agent-workdir', start } }
}

function contains(folder: string, path: string): boolean {
  const rel = relative(folder, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}
