/**
 * `agent.user`: the agent and the commands it asks for run as another account than the gateway's. A program
 * running as the gateway's own user can read everything the gateway can (`/proc/<gateway>/environ`, the
 * config file `/proc/<gateway>/cmdline` names, the state file), whatever the gateway keeps from its
 * environment; the kernel keeps another user out of all of them. Node switches the child itself (`spawn`'s
 * `uid` and `gid`, which also drop the supplementary groups), so only a gateway running as root can: a root
 * process that switches to another user loses every capability. A gateway given CAP_SETUID as a non-root user
 * is refused on purpose: Linux keeps a non-root process's capabilities across that switch (ambient ones, or
 * the file capabilities of `node` that the watchdog runs again), so the agent could switch back.
 */
import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { ConfigError, type ConfigIssue } from '../errors.js'
import type { AgentUser } from '../types.js'

/** An entry of the account database: passwd's (name, uid, gid, home) or group's (name, gid). */
interface Entry {
  readonly id: number
  readonly gid: number
  readonly home: string
}

/** What resolving needs from the machine; a test passes its own. */
export interface AccountLookup {
  /** The gateway's effective uid; undefined where there is none (Windows). */
  readonly euid: number | undefined
  /** The `passwd` or `group` entry named `key` (a name or a number), undefined when there is none. */
  readonly find: (database: 'passwd' | 'group', key: string) => Promise<Entry | undefined>
}

/** This machine: `getent` (which also asks LDAP, systemd's dynamic users, ...), else /etc/passwd and /etc/group. */
export const systemAccounts: AccountLookup = {
  euid: process.geteuid?.(),
  find: async (database, key) => {
    const line = (await getent(database, key)) ?? (await fileEntry(database, key))
    return line === undefined ? undefined : parseEntry(database, line)
  },
}

/**
 * The account `user` (and `group`) of the configuration, or undefined when `agent.user` is not set. Throws a
 * ConfigError that says what to change when the account does not exist or the gateway cannot switch to it.
 */
export async function resolveAgentUser(user: string | undefined, group: string | undefined, lookup: AccountLookup = systemAccounts): Promise<AgentUser | undefined> {
  if (user === undefined) {
    if (group !== undefined) throw new ConfigError([{ path: 'agent.group', message: 'needs agent.user: the agent switches group only together with its user' }])
    return undefined
  }
  const issues: ConfigIssue[] = []
  if (lookup.euid === undefined) {
    issues.push({ path: 'agent.user', message: `running the agent as another user is not supported on ${process.platform}` })
  } else if (lookup.euid !== 0) {
    issues.push({
      path: 'agent.user',
      message: `the gateway runs as uid ${lookup.euid} and cannot start programs as "${user}": run it as root (it starts only the agent and its commands as "${user}"), or leave agent.user out and run the whole gateway as a dedicated account (docs/deploy.md). Capabilities (CAP_SETUID) are not enough: the agent would keep them and could switch back`,
    })
  }
  const account = await lookup.find('passwd', user)
  const numeric = /^\d+$/.test(user) ? Number(user) : undefined
  if (account === undefined && numeric === undefined) issues.push({ path: 'agent.user', message: `there is no user "${user}" on this machine: create it (useradd --system ${user}) or name another` })
  const uid = account?.id ?? numeric ?? 0
  if (uid === 0 && (account !== undefined || numeric !== undefined)) {
    issues.push({ path: 'agent.user', message: `"${user}" is root: give the agent an account of its own, which cannot read the gateway's secrets` })
  }
  let gid = account?.gid ?? uid
  if (group !== undefined) {
    const found = await lookup.find('group', group)
    if (found !== undefined) gid = found.id
    else if (/^\d+$/.test(group)) gid = Number(group)
    else issues.push({ path: 'agent.group', message: `there is no group "${group}" on this machine: create it or name another (or leave agent.group out for the user's own)` })
  }
  if (issues.length > 0) throw new ConfigError(issues)
  return { name: user, uid, gid, home: account?.home || '/' }
}

/** The environment of a program run as `user`: its own HOME, USER and LOGNAME, so its tools find their settings. */
export function agentEnv(env: NodeJS.ProcessEnv, user: AgentUser | undefined): NodeJS.ProcessEnv {
  return user === undefined ? env : { ...env, HOME: user.home, USER: user.name, LOGNAME: user.name }
}

/** `getent <database> <key>`'s line; undefined when the key is unknown or getent is missing (musl, macOS). */
function getent(database: string, key: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('getent', [database, key], { timeout: 5_000 }, (error, stdout) => resolve(error ? undefined : stdout.split('\n')[0]))
  })
}

async function fileEntry(database: 'passwd' | 'group', key: string): Promise<string | undefined> {
  const text = await readFile(`/etc/${database}`, 'utf8').catch(() => '')
  const column = /^\d+$/.test(key) ? 2 : 0
  return text.split('\n').find((line) => line.split(':')[column] === key)
}

function parseEntry(database: 'passwd' | 'group', line: string): Entry | undefined {
  const fields = line.split(':')
  const id = Number(fields[2])
  if (!Number.isInteger(id)) return undefined
  if (database === 'group') return { id, gid: id, home: '/' }
  const gid = Number(fields[3])
  return { id, gid: Number.isInteger(gid) ? gid : id, home: fields[5] ?? '/' }
}
