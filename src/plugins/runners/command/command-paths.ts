/**
 * `agent.command`'s relative paths, read against the config file's folder as the configuration's other paths are:
 * agents run in their own folder (`agent.workdir`, a private temporary one by default), so `["node", "agent.mjs"]`
 * beside config.yaml would otherwise name a file the agent's folder does not hold, and fail every run.
 */
import { statSync } from 'node:fs'
import { isAbsolute, resolve, sep } from 'node:path'

/**
 * `command` with each relative path that names an existing file in `baseDir` made absolute: the program when it
 * has a path separator (`./agent.sh`, `bin/agent`; a bare name is looked up on the PATH), and an argument that is
 * not a flag (`agent.mjs`, `prompts/review.md`). Anything else stays as written: a word that names no file there
 * (`-p`, `review`) is an argument, not a path.
 *
 * @example
 * commandPaths(['node', 'agent.mjs'], '/etc/hookpilot') // ['node', '/etc/hookpilot/agent.mjs'] when that file exists
 */
export function commandPaths(command: readonly string[], baseDir: string): string[] {
  return command.map((part, index) => {
    if (part === '' || isAbsolute(part) || part.startsWith('-')) return part
    if (index === 0 && !part.includes('/') && !part.includes(sep)) return part
    const candidate = resolve(baseDir, part)
    return isFile(candidate) ? candidate : part
  })
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}
