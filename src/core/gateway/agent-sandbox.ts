/**
 * `agent.sandbox`: every agent run (the agent, the commands it asks for) in a bubblewrap sandbox where the
 * machine can make one. An agent reads text written by whoever opened the pull request, so it must be assumed
 * to do whatever that text says; running as the gateway's user it could find the gateway in `/proc` and read
 * its environment, its config file, its state and its keys. Inside the sandbox it sees a read-only root, its own
 * writable folder, a private `/tmp` and `/dev`, a `/proc` of its own processes only (a PID namespace: the
 * gateway is not there), and none of the paths the gateway and its plugins keep private (hidden by empty
 * mounts). The network is shared: the agent needs its model's API and GitHub.
 *
 * `auto` (the default) sandboxes where bubblewrap works and otherwise runs agents as before, saying so at start;
 * `bubblewrap` refuses to start without it; `off` never sandboxes. Availability is probed once, at start, by
 * running bubblewrap for real with the options a run uses (as `agent.user` when set): a machine whose kernel
 * refuses user namespaces, or a container without them, fails there rather than at the first webhook.
 */
import { execFile } from 'node:child_process'
import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, dirname, isAbsolute, join, relative, resolve } from 'node:path'
import type { HookpilotConfig } from '../config/schema.js'
import { configSource } from '../plugin-api/load-config.js'
import { ConfigError } from '../errors.js'
import type { AgentSandbox, AgentUser } from '../types.js'

/** The values of `agent.sandbox`. */
export type SandboxMode = 'auto' | 'bubblewrap' | 'off'

/** Whether bubblewrap can make a sandbox here: its path, or what is missing and how to get it. */
export type SandboxProbe = { readonly ok: true; readonly bwrap: string } | { readonly ok: false; readonly missing: string }

/** What probing needs from the machine; a test passes its own PATH or platform. */
export interface ProbeOptions {
  /** Where `bwrap` is looked for: this environment's PATH. Defaults to the gateway's. */
  readonly env?: NodeJS.ProcessEnv | undefined
  /** The account the probe runs as: the agent's (`agent.user`), whose user namespaces are the ones a run needs. */
  readonly runAs?: AgentUser | undefined
  readonly platform?: NodeJS.Platform | undefined
}

/** Daemons' sockets an agent must never reach, whatever the configuration: the Docker socket is root on the host. */
const DAEMON_SOCKETS = ['/run/docker.sock', '/var/run/docker.sock', '/run/containerd/containerd.sock', '/run/podman/podman.sock']

/** How to get bubblewrap, said with every "missing". */
const INSTALL = 'install bubblewrap (Debian, Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; Alpine: apk add bubblewrap)'

/**
 * Asks the machine whether a sandbox can be made: looks for `bwrap` on PATH and runs it once (without a shell)
 * with the namespaces and mounts of a real run.
 */
export async function probeBubblewrap(options: ProbeOptions = {}): Promise<SandboxProbe> {
  const platform = options.platform ?? process.platform
  if (platform !== 'linux') return { ok: false, missing: `bubblewrap needs Linux, and this is ${platform}` }
  const bwrap = onPath('bwrap', options.env ?? process.env)
  if (bwrap === undefined) return { ok: false, missing: `bwrap is not on PATH: ${INSTALL}` }
  const failure = await new Promise<string | undefined>((done) => {
    execFile(bwrap, [...baseArgs(), '--', 'true'], {
      timeout: 10_000,
      env: { PATH: '/usr/local/bin:/usr/bin:/bin' },
      ...(options.runAs === undefined ? {} : { uid: options.runAs.uid, gid: options.runAs.gid }),
    }, (error, _stdout, stderr) => done(error ? (stderr.trim() || error.message) : undefined))
  })
  if (failure === undefined) return { ok: true, bwrap }
  const as = options.runAs === undefined ? '' : ` as ${options.runAs.name}`
  return {
    ok: false,
    missing: `${bwrap} cannot make a sandbox here${as} (${failure.split('\n')[0]}): unprivileged user namespaces are probably off ` +
      '(sysctl kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0; on Ubuntu 24.04, an AppArmor profile for bwrap or ' +
      'kernel.apparmor_restrict_unprivileged_userns=0; in a container, see docs/deploy.md)',
  }
}

/**
 * The gateway's own paths no agent may read: the config file, the subscriptions file (every route's secret),
 * and the folders of the local plugin modules `plugins:` loads (only the module itself when it sits beside
 * config.yaml, whose folder may hold the agent's own scripts). Plugins add theirs (`privatePaths`).
 */
export function gatewayPrivatePaths(config: HookpilotConfig, baseDir: string, subscriptions: string | undefined): string[] {
  const source = configSource(config)
  const modules = config.plugins
    .map((entry) => entry.use)
    .filter((use) => use.startsWith('.') || isAbsolute(use))
    .map((use) => {
      const file = resolve(baseDir, use)
      return dirname(file) === resolve(baseDir) ? file : dirname(file)
    })
  return [...(source === undefined ? [] : [resolve(baseDir, source)]), ...(subscriptions === undefined ? [] : [subscriptions]), ...modules]
}

/** What {@link resolveAgentSandbox} needs besides the mode. */
export interface SandboxOptions extends ProbeOptions {
  /** Paths no agent may read: the config file, the subscriptions file, the plugins' modules (more may be added). */
  readonly hidden: readonly string[]
}

/** The sandbox of a gateway's agent runs, and the warning to say at start when there is none. */
export interface ResolvedSandbox {
  /** Undefined when agents run without one (`off`, or `auto` where the machine cannot make one). */
  readonly sandbox: (AgentSandbox & { hide(paths: readonly string[]): void }) | undefined
  readonly warning?: string | undefined
}

/**
 * The sandbox `mode` asks for, probed. Throws a ConfigError when `bubblewrap` is asked for and the machine
 * cannot make one; `auto` answers a loud warning instead.
 */
export async function resolveAgentSandbox(mode: SandboxMode, options: SandboxOptions): Promise<ResolvedSandbox> {
  if (mode === 'off') return { sandbox: undefined }
  const probe = await probeBubblewrap(options)
  if (probe.ok) return { sandbox: bubblewrapSandbox(probe.bwrap, options.hidden, options.runAs) }
  if (mode === 'bubblewrap') {
    throw new ConfigError([{ path: 'agent.sandbox', message: `bubblewrap was asked for and ${probe.missing}; or set agent.sandbox: auto to run agents without a sandbox (docs/security.md)` }])
  }
  return {
    sandbox: undefined,
    warning: `agent.sandbox: agents run WITHOUT a sandbox, as the gateway's own user: ${probe.missing}. A prompt-injected agent can then read ` +
      'what the gateway can (its environment in /proc, config.yaml, the state file, keys). Fix that, set agent.user (docs/security.md), ' +
      'or set agent.sandbox: off to say it is meant',
  }
}

/**
 * A bubblewrap sandbox: `bwrap` with its mounts, then the program. The hidden paths are looked at on each run
 * (a state file made after the start is hidden too); `hide` adds the paths plugins keep private. With `runAs`
 * (`agent.user`), bubblewrap runs as that account, which can mount nothing where it cannot go: a path it cannot
 * reach needs no mount, since the kernel already keeps it out.
 */
export function bubblewrapSandbox(bwrap: string, hidden: readonly string[], runAs?: AgentUser): AgentSandbox & { hide(paths: readonly string[]): void } {
  const paths = new Set([...hidden, ...DAEMON_SOCKETS].map((path) => resolve(path)))
  return {
    name: 'bubblewrap',
    hide(more) {
      for (const path of more) paths.add(resolve(path))
    },
    wrap(argv, cwd) {
      const folder = resolve(cwd)
      const reachable = runAs === undefined ? [...paths] : [...paths].filter((path) => reachableBy(path, runAs))
      return [bwrap, ...baseArgs(), ...mountArgs(reachable, folder), '--chdir', folder, '--', ...argv]
    },
  }
}

/**
 * The namespaces and mounts of every run. No `--new-session`: the run is already a session of its own with no
 * controlling terminal (the watchdog is spawned detached), which is what that option guards (TIOCSTI), and
 * staying in the watchdog's process group is what lets a timeout's SIGTERM reach the agent itself. No
 * `--clearenv`: bwrap passes on the environment it was started with, which is already exactly the agent's (the
 * gateway's less its secrets, plus the job's token); `--setenv` would put the token on a command line that
 * every user of the machine can read.
 */
function baseArgs(): string[] {
  return [
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    '--tmpfs', '/tmp',
    '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
    '--die-with-parent',
  ]
}

/**
 * The agent's own folder, writable, and empty mounts over each hidden path that exists: a tmpfs on a folder
 * (then made read-only, unless the agent's folder is inside it), the empty /dev/null on a file. A hidden path
 * inside the agent's folder is masked after that folder is mounted, or the mount would uncover it again.
 */
function mountArgs(paths: readonly string[], writable: string): string[] {
  const mask = (path: string, folder: boolean) => (folder ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path])
  const outer: string[] = []
  const inner: string[] = []
  const readOnly: string[] = []
  for (const path of paths) {
    // What is under /tmp is gone already: the sandbox's /tmp is its own.
    if (inside('/tmp', path)) continue
    let folder: boolean
    try {
      folder = statSync(path).isDirectory()
    } catch {
      continue
    }
    const within = inside(writable, path)
    ;(within ? inner : outer).push(...mask(path, folder))
    if (folder && !inside(path, writable)) readOnly.push('--remount-ro', path)
  }
  return [...outer, '--bind', writable, writable, ...inner, ...readOnly]
}

/** Whether `user` (its own group only: the switch drops the others) may pass every folder above `path`. */
function reachableBy(path: string, user: AgentUser): boolean {
  for (let folder = dirname(path); ; folder = dirname(folder)) {
    try {
      const { mode, uid, gid } = statSync(folder)
      const bit = uid === user.uid ? 0o100 : gid === user.gid ? 0o010 : 0o001
      if ((mode & bit) === 0) return false
    } catch {
      return false
    }
    if (folder === dirname(folder)) return true
  }
}

function inside(folder: string, path: string): boolean {
  const rel = relative(folder, path)
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel))
}

/** The full path of `name` on `env`'s PATH, or undefined. */
function onPath(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue
    const path = join(dir, name)
    try {
      if (!statSync(path).isFile()) continue
      accessSync(path, constants.X_OK)
      return path
    } catch {
      // not here
    }
  }
  return undefined
}
