/**
 * Where a program would be found when it is started without a shell: a path (absolute, or relative to the
 * gateway's folder, as `runProcess` resolves it) or a name looked up on the PATH the program is given. Used at
 * startup, so a mistyped agent command (`claud`) or a missing `gh` is refused before the first webhook is
 * accepted, rather than failing the job after a green 202.
 */
import { accessSync, constants, readdirSync, realpathSync, statSync } from 'node:fs'
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path'
import { suggest } from '../../util/suggest.js'
import type { AgentSandbox } from '../types.js'

/** The full path of `program`, or undefined when it is not there or not executable. */
export function findProgram(program: string, env: NodeJS.ProcessEnv | undefined = process.env): string | undefined {
  if (/[\\/]/.test(program)) {
    const path = isAbsolute(program) ? program : resolve(program)
    return isExecutable(path) ? path : undefined
  }
  for (const dir of searchPath(env)) {
    for (const name of candidates(program, env)) {
      const path = join(dir, name)
      if (isExecutable(path)) return path
    }
  }
  return undefined
}

/**
 * Why `program` cannot be started, in words that say what to change (with the closest program on PATH when
 * one is close: `claud` → `claude`), or undefined when it can.
 */
export function missingProgramProblem(program: string, env: NodeJS.ProcessEnv | undefined, what: string): string | undefined {
  if (findProgram(program, env) !== undefined) return undefined
  if (/[\\/]/.test(program)) return `${what} "${program}" is not there, or not executable: fix the path`
  const dirs = searchPath(env)
  const close = suggest(program, dirs.flatMap(programsIn))
  const hint = close === undefined ? '' : ` (did you mean "${close}"?)`
  return `${what} "${program}" is not on PATH${hint} (PATH: ${dirs.join(delimiter) || 'empty'}): install it, fix its name, or give its full path`
}

/**
 * Why `command` would not find its program, or a file it names by absolute path, inside `sandbox` (installed in
 * a home folder the sandbox hides, `~/.local/bin`, or reached there through a link), in words that say what to
 * change; undefined when all of it is there, or when the program is not found at all ({@link missingProgramProblem}
 * says that).
 */
export function hiddenProgramProblem(command: readonly string[], env: NodeJS.ProcessEnv | undefined, sandbox: AgentSandbox | undefined, what: string): string | undefined {
  const [program = '', ...args] = command
  const found = findProgram(program, env)
  if (found === undefined || sandbox?.visible === undefined) return undefined
  // The program by its path and where its link points; the arguments that name a file the host has (a script).
  const named = [found, ...args.filter((arg) => isAbsolute(arg) && exists(arg))]
  const paths = [...new Set(named.flatMap((path) => [path, realPath(path)]))]
  const hidden = paths.filter((path) => !sandbox.visible?.(path, env))
  if (hidden.length === 0) return undefined
  const folders = [...new Set(hidden.map((path) => dirname(path)))].join(', ')
  return `${what} "${command.join(' ')}" needs ${hidden.join(', ')}, which the agent's sandbox hides (its home folder is private there): ` +
    `install it outside the home (/usr/local/bin), share ${folders} read-only with agent.sandbox_paths, or set agent.sandbox: off`
}

function exists(path: string): boolean {
  try {
    statSync(path)
    return true
  } catch {
    return false
  }
}

/** Where `path` leads through its links; `path` itself when it cannot be followed. */
function realPath(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

function searchPath(env: NodeJS.ProcessEnv | undefined): string[] {
  return ((env ?? process.env)['PATH'] ?? '').split(delimiter).filter((dir) => dir !== '')
}

/** The names to try: on Windows with each of PATHEXT's extensions, as the system's own lookup does. */
function candidates(program: string, env: NodeJS.ProcessEnv | undefined): string[] {
  if (process.platform !== 'win32') return [program]
  const extensions = ((env ?? process.env)['PATHEXT'] ?? '.EXE;.CMD;.BAT;.COM').split(';').filter((e) => e !== '')
  return [program, ...extensions.map((ext) => program + ext)]
}

function isExecutable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false
    accessSync(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}

function programsIn(dir: string): string[] {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}
