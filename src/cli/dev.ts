/**
 * `hookpilot dev <tool>`: stand-ins for the services a gateway talks to, for trying it on one machine: `github`, a
 * fake GitHub that `gh` and Octokit can talk to (src/dev/github/), and `gitlab`, a fake GitLab (src/dev/gitlab/).
 */
import { suggest } from '../util/suggest.js'
import { UsageError } from './args.js'
import type { Subcommand } from './io.js'

const HELP = `Usage: hookpilot dev <tool> [options]

Stand-ins for the services a gateway talks to, to try it on one machine:
  github      a fake GitHub API (pull requests, their heads, comments) that gh and Octokit can use, printing
              each request it is sent; see docs/reviews.md, "Try it locally"
  gitlab      a fake GitLab API (merge requests, diff versions, notes, discussions, statuses) for a gitlab_mr
              target, printing each request it is sent; see docs/reviews.md, "GitLab"

Run "hookpilot dev <tool> --help" for a tool's options.
`

const TOOLS: Readonly<Record<string, () => Promise<Subcommand>>> = {
  github: async () => (await import('./dev-github.js')).devGithub,
  gitlab: async () => (await import('./dev-gitlab.js')).devGitlab,
}

/** Runs `hookpilot dev <tool> ...`. */
export const dev: Subcommand = async (args, io) => {
  const [tool, ...rest] = args
  if (tool === undefined) {
    io.stderr.write(HELP) // usage as an error: no tool was given
    return 2
  }
  if (tool === '--help' || tool === '-h') {
    io.stdout.write(HELP)
    return 0
  }
  const load = Object.hasOwn(TOOLS, tool) ? TOOLS[tool] : undefined
  if (load === undefined) {
    const close = suggest(tool, Object.keys(TOOLS))
    throw new UsageError(`unknown tool "${tool}"${close === undefined ? '' : ` (did you mean "${close}"?)`}; the tools: ${Object.keys(TOOLS).join(', ')}.`)
  }
  return (await load())(rest, io)
}
