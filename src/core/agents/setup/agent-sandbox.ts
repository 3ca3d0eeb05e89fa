/**
 * `agent.sandbox`: every agent run (the agent, the commands it asks for) in a bubblewrap sandbox where the
 * machine can make one. An agent reads text written by whoever opened the pull request, so it must be assumed
 * to do whatever that text says; running as the gateway's user it could find the gateway in `/proc` and read
 * its environment, its config file, its state and its keys. Inside the sandbox it sees a read-only root, its own
 * writable folder (one per run: other jobs' folders are not there), a private `/tmp` and `/dev`, a `/proc` of
 * its own processes only (a PID namespace: the gateway is not there), an empty private home (the gateway
 * user's `~/.config/gh`, `~/.ssh` and the like are hidden, and what the agent writes there is gone with the
 * run), and none of the paths the gateway and its plugins keep private (hidden by empty mounts). Paths an
 * operator shares (`agent.sandbox_paths`) are seen read-only. The network is shared (the agent needs its
 * model's API and GitHub) unless `agent.network: false` cuts it.
 *
 * `auto` (the default) sandboxes where bubblewrap works and otherwise runs agents as before, saying so at start;
 * `bubblewrap` refuses to start without it; `off` never sandboxes. Availability is probed once, at start, by
 * running bubblewrap for real with the options a run uses (as `agent.user` when set): a machine whose kernel
 * refuses user namespaces, or a container without them, fails there rather than at the first webhook.
 */
import { execFile } from 'node:child_process'
import { accessSync, constants, statSync } from 'node:fs'
import { homedir, userInfo } from 'node:os'
import { delimiter, dirname, isAbsolute, join, relative, resolve } from 'node:path'
import type { HookpilotConfig } from '../../config/schema.js'
import { configSource } from '../../plugin-api/load-config.js'
import { ConfigError } from '../../errors.js'
import type { AgentSandbox, AgentUser } from '../../types.js'

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
  /** `false` probes with the network cut too (`agent.network: false`). */
  readonly network?: boolean | undefined
}

/** What a sandbox lets in besides the agent's own folder. */
export interface SandboxAccess {
  /** `false` cuts the network (`agent.network: false`): a network namespace of its own, with only loopback. */
  readonly network?: boolean | undefined
  /**
   * Paths the agent may read (`agent.sandbox_paths`), absolute: seen read-only, even inside a home the sandbox
   * hides (the agent's own program under `~/.local`, a read-only credentials folder). A private path inside one
   * stays hidden.
   */
  readonly readOnly?: readonly string[] | undefined
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
    execFile(bwrap, [...baseArgs(options.network !== false), '--', 'true'], {
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

/**
 * What `agent:` asks of the sandbox: the gateway's private paths and the shared working folder (each run gets
 * its own inside it) hidden, `agent.sandbox_paths` (relative to `baseDir`) shared read-only, `agent.network`.
 */
export function sandboxOptions(config: HookpilotConfig, baseDir: string, subscriptions: string | undefined, workdir: string | undefined, runAs: AgentUser | undefined): SandboxOptions {
  return {
    runAs,
    hidden: [...gatewayPrivatePaths(config, baseDir, subscriptions), ...(workdir === undefined ? [] : [workdir])],
    readOnly: config.agent.sandbox_paths.map((path) => resolve(baseDir, path)),
    network: config.agent.network,
  }
}

/** What {@link resolveAgentSandbox} needs besides the mode. */
export interface SandboxOptions extends ProbeOptions {
  /**
   * Paths no agent may read: the config file, the subscriptions file, the plugins' modules, the shared working
   * folder that holds every run's own (more may be added).
   */
  readonly hidden: readonly string[]
  /** Paths shared read-only (`agent.sandbox_paths`), absolute. */
  readonly readOnly?: readonly string[] | undefined
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
  // Only the sandbox can cut the network: a run without one would have it, whatever the configuration says.
  const offline = options.network === false
  if (mode === 'off' && offline) {
    throw new ConfigError([{ path: 'agent.network', message: 'false needs the sandbox, and agent.sandbox is off: set agent.sandbox: auto or bubblewrap, or drop agent.network' }])
  }
  if (mode === 'off') return { sandbox: undefined }
  const probe = await probeBubblewrap(options)
  if (probe.ok) return { sandbox: bubblewrapSandbox(probe.bwrap, options.hidden, options.runAs, { network: options.network, readOnly: options.readOnly }) }
  if (mode === 'bubblewrap' || offline) {
    const [path, asked] = mode === 'bubblewrap' ? ['agent.sandbox', 'bubblewrap was asked for'] : ['agent.network', 'false needs the sandbox to cut the network']
    throw new ConfigError([{ path, message: `${asked} and ${probe.missing}; or set agent.sandbox: auto (without agent.network: false) to run agents without a sandbox (docs/security.md)` }])
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
export function bubblewrapSandbox(
  bwrap: string,
  hidden: readonly string[],
  runAs?: AgentUser,
  access: SandboxAccess = {},
): AgentSandbox & { hide(paths: readonly string[]): void } {
  const paths = new Set([...hidden, ...DAEMON_SOCKETS].map((path) => resolve(path)))
  const readOnly = (access.readOnly ?? []).map((path) => resolve(path))
  const canReach = (path: string) => runAs === undefined || reachableBy(path, runAs)
  // The gateway user's own home, by its HOME and by the account's record (they differ when HOME was changed).
  const gatewayHomes = [homedir(), accountHome()]
  // A home `agent.user` cannot reach is out of its reach already, and bubblewrap, run as it, could mount nothing there.
  const reach = (path: string | undefined): path is string => path !== undefined && canReach(path)
  const homeOf = (env: NodeJS.ProcessEnv) => privateHome(reach(env['HOME']) ? env['HOME'] : undefined, [...gatewayHomes, runAs?.home].filter(reach))
  const isHidden = (file: string) => [...paths].some((hiddenPath) => inside(hiddenPath, file))
  // A script the command names by its path under /tmp (a program unpacked there, a checkout in a temp folder) is
  // the operator's, and the run needs it: it is shared read-only into the sandbox's own /tmp. Only the files
  // named, never their folder, and never a path the gateway keeps private.
  const namedInTmp = (argv: readonly string[]) =>
    argv.filter((arg) => isAbsolute(arg) && inside('/tmp', resolve(arg)) && isFile(arg) && !isHidden(resolve(arg))).map((arg) => resolve(arg))
  return {
    name: 'bubblewrap',
    hide(more) {
      for (const path of more) paths.add(resolve(path))
    },
    wrap(argv, cwd, env = process.env) {
      const folder = resolve(cwd)
      const home = homeOf(env)
      const shared = [...readOnly, ...namedInTmp(argv)]
      const mounts = mountArgs({ hidden: [...paths].filter(canReach), writable: folder, readOnly: shared, covered: ['/tmp', ...home.masked] })
      return [bwrap, ...baseArgs(access.network !== false), ...home.args, ...mounts, '--chdir', folder, '--', ...argv]
    },
    visible(path, env = process.env) {
      const file = resolve(path)
      // A hidden path is masked after the shares, so it stays hidden inside one.
      if (isHidden(file)) return false
      if (readOnly.some((share) => inside(share, file)) || namedInTmp([file]).length > 0) return true
      return !['/tmp', ...homeOf(env).masked].some((folder) => inside(folder, file))
    },
  }
}

/** Where the agent's HOME points when the one it was given cannot be made private (unset, `/`, missing). */
const FALLBACK_HOME = '/tmp/home'

/**
 * The agent's private home: an empty tmpfs over every home folder it could otherwise read (the one its HOME
 * names, the gateway user's, `agent.user`'s), writable, gone with the run. CLIs write their caches and settings
 * there (Claude Code's `~/.claude`); what the gateway user keeps in its own (gh's token, ssh keys) is not there.
 * `masked`: the folders now empty, whose hidden paths need no mount of their own.
 */
function privateHome(given: string | undefined, others: readonly (string | undefined)[]): { args: string[]; masked: string[] } {
  const usable = (path: string | undefined): path is string => path !== undefined && isAbsolute(path) && resolve(path) !== '/'
  const masked = [...new Set([given, ...others].filter(usable).map((path) => resolve(path)))].filter((path) => !inside('/tmp', path) && isFolder(path))
  const args = masked.flatMap((path) => ['--tmpfs', path])
  if (usable(given) && masked.includes(resolve(given))) return { args, masked }
  // A HOME under /tmp is made afresh in the sandbox's own /tmp; anything else points at one made there.
  if (usable(given) && inside('/tmp', resolve(given))) return { args: [...args, '--dir', resolve(given)], masked }
  return { args: [...args, '--dir', FALLBACK_HOME, '--setenv', 'HOME', FALLBACK_HOME], masked }
}

/** The gateway account's home folder as the system records it (undefined where it has none). */
function accountHome(): string | undefined {
  try {
    return userInfo().homedir
  } catch {
    return undefined
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}

/**
 * The namespaces and mounts of every run. No `--new-session`: the run is already a session of its own with no
 * controlling terminal (the watchdog is spawned detached), which is what that option guards (TIOCSTI), and
 * staying in the watchdog's process group is what lets a timeout's SIGTERM reach the agent itself. No
 * `--clearenv`: bwrap passes on the environment it was started with, which is already exactly the agent's (the
 * gateway's less its secrets, plus the job's token); `--setenv` would put the token on a command line that
 * every user of the machine can read. Without `network`, a network namespace of its own (loopback only).
 */
function baseArgs(network: boolean): string[] {
  return [
    '--ro-bind', '/', '/',
    '--dev', '/dev',
    '--proc', '/proc',
    '--tmpfs', '/tmp',
    '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
    ...(network ? [] : ['--unshare-net']),
    '--die-with-parent',
  ]
}

/** The paths {@link mountArgs} mounts. */
interface Mounts {
  /** Paths to hide behind empty mounts. */
  readonly hidden: readonly string[]
  /** The agent's own folder. */
  readonly writable: string
  /** Paths shared read-only. */
  readonly readOnly: readonly string[]
  /** Folders already private (the sandbox's /tmp, its home): what is under them is gone without a mount. */
  readonly covered: readonly string[]
}

/**
 * The shared read-only paths, the agent's own folder, writable, and empty mounts over each hidden path that
 * exists: a tmpfs on a folder (then made read-only, unless the agent's folder is inside it), the empty
 * /dev/null on a file. A hidden path is masked after the shares that hold it, and one inside the agent's folder
 * after that folder is mounted, or those mounts would uncover it again.
 */
function mountArgs({ hidden, writable, readOnly, covered }: Mounts): string[] {
  const mask = (path: string, folder: boolean) => (folder ? ['--tmpfs', path] : ['--ro-bind', '/dev/null', path])
  const shared = readOnly.flatMap((path) => ['--ro-bind-try', path, path])
  const outer: string[] = []
  const inner: string[] = []
  const remount: string[] = []
  for (const path of hidden) {
    const within = inside(writable, path)
    const gone = covered.some((folder) => inside(folder, path)) && !readOnly.some((share) => inside(share, path))
    if (gone && !within) continue
    let folder: boolean
    try {
      folder = statSync(path).isDirectory()
    } catch {
      continue
    }
    ;(within ? inner : outer).push(...mask(path, folder))
    if (folder && !inside(path, writable)) remount.push('--remount-ro', path)
  }
  return [...shared, ...outer, '--bind', writable, writable, ...inner, ...remount]
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
