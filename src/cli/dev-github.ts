/**
 * `hookpilot dev github`: runs the fake GitHub of src/dev/github/ until Ctrl-C, printing the environment that
 * points gh (and so a gateway's `github_comment` target) at it, then each request it is sent, one a line.
 * `hookpilot dev github head` moves a pull request's head on a running fake (what a push does on GitHub), and
 * `hookpilot dev github show` prints a pull request's head and comments.
 */
import { rmSync, writeFileSync } from 'node:fs'
import { isAbsolute, resolve } from 'node:path'
import { SHA_PATTERN, type PullSummary } from '../dev/github/admin.js'
import { formatRequestRecord, startFakeGithub } from '../dev/github/server.js'
import { parse, toPort, UsageError } from './args.js'
import type { CliIO, Subcommand } from './io.js'
import { samplePayload } from './sample-payload.js'

/** Where the fake listens unless told otherwise: beside examples/config.yaml's 8644. */
export const DEFAULT_FAKE_GITHUB_PORT = 8645

const DEFAULT_URL = `http://127.0.0.1:${DEFAULT_FAKE_GITHUB_PORT}`

const HELP = `Usage: hookpilot dev github [--port N] [--host H] [--pull OWNER/REPO#N[=SHA]]... [--write-env FILE]
       hookpilot dev github head OWNER/REPO#N SHA [--parent SHA]... [--url URL]
       hookpilot dev github show OWNER/REPO#N [--url URL] [--json]

Runs a fake GitHub API in memory until Ctrl-C: pull requests with their head, their comments (list, create,
edit), reviews and their threads, check runs and statuses, the compare API over the commits it is told about, the
account its token stands for, and GraphQL's pull request, addComment, reviewThreads and resolveReviewThread, as gh
and Octokit ask for them. It prints the environment gh needs to use it (put it in the shell of "hookpilot serve"), then each request
it is sent, one a line. Nothing it holds survives it.

  head    moves a pull request's head on the running fake (declaring the pull request), as a push does
  show    prints a pull request's head and its comments

Options:
      --port N         port to listen on (default: ${DEFAULT_FAKE_GITHUB_PORT}; 0 picks a free one)
      --host H         address to listen on (default: 127.0.0.1)
      --pull P         a pull request to start with, OWNER/REPO#N or OWNER/REPO#N=SHA (repeatable; default:
                       the one "hookpilot send" sends, octocat/hello-world#42, at the sample's head)
      --login L        the account the token stands for (default: hookpilot-bot)
      --token T        the token clients must send (default: a fixed fake one)
      --write-env FILE also write the environment to FILE as export lines (". FILE" loads it); removed at exit
      --parent SHA     (head) a parent of the new head, for the compare API an incremental review asks
                       (repeatable; a push on top of the old head names it, a force-push names another)
      --url URL        (head, show) where the fake runs (default: ${DEFAULT_URL})
      --json           (show) print the pull request as JSON
  -h, --help           show this help
`

const OPTIONS = {
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  pull: { type: 'string', multiple: true },
  login: { type: 'string' },
  token: { type: 'string' },
  'write-env': { type: 'string' },
  url: { type: 'string' },
  parent: { type: 'string', multiple: true },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

/** A pull request named on the command line. */
interface PullRef {
  readonly repo: string
  readonly number: number
}

/** `hookpilot dev github ...`. */
export const devGithub: Subcommand = async (args, io) => {
  const { values, positionals } = parse(args, OPTIONS, 'dev github')
  if (values.help) {
    io.stdout.write(HELP)
    return 0
  }
  const [action, ...rest] = positionals
  const url = (values.url ?? DEFAULT_URL).replace(/\/+$/, '')
  if (action === 'head') {
    if (rest.length !== 2) throw new UsageError('head takes a pull request and a SHA: hookpilot dev github head octocat/hello-world#42 <sha>.')
    const [pull = '', sha = ''] = rest
    if (!SHA_PATTERN.test(sha)) throw new UsageError(`head takes a commit SHA (7 to 64 hex digits), not "${sha}".`)
    const parents = values.parent ?? []
    const bad = parents.find((parent) => !SHA_PATTERN.test(parent))
    if (bad !== undefined) throw new UsageError(`--parent takes a commit SHA (7 to 64 hex digits), not "${bad}".`)
    return moveHead(url, pullRef(pull), sha, parents, io)
  }
  if (action === 'show') {
    if (rest.length !== 1) throw new UsageError('show takes one pull request: hookpilot dev github show octocat/hello-world#42.')
    return show(url, pullRef(rest[0] ?? ''), values.json === true, io)
  }
  if (action !== undefined) throw new UsageError(`unknown action "${action}": "hookpilot dev github" runs the fake; its actions are head and show.`)
  return run(values, io)
}

async function run(values: ReturnType<typeof parse<typeof OPTIONS>>['values'], io: CliIO): Promise<number> {
  const sample = samplePayload('pull_request') as { number: number; repository: { full_name: string }; pull_request: { head: { sha: string } } }
  const pulls = (values.pull ?? [`${sample.repository.full_name}#${sample.number}`]).map((spec) => {
    const [ref = '', sha = sample.pull_request.head.sha] = spec.split('=')
    if (!SHA_PATTERN.test(sha)) throw new UsageError(`--pull ${spec}: the head after "=" must be a commit SHA (7 to 64 hex digits).`)
    return { ...pullRef(ref), sha }
  })
  if (values.token !== undefined && !/^[\x21-\x7e]{8,200}$/.test(values.token)) throw new UsageError('--token takes 8 to 200 visible characters without spaces.')
  const github = await startFakeGithub({
    host: values.host,
    port: toPort(values.port, '--port') ?? DEFAULT_FAKE_GITHUB_PORT,
    login: values.login,
    token: values.token,
    onRequest: (record) => io.stdout.write(`${new Date().toISOString().slice(11, 23)}Z ${formatRequestRecord(record)}\n`),
  }).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new UsageError(`the port is in use (is a fake GitHub already running?): pass --port with another, or 0 for any free one.`)
    throw err
  })
  for (const pull of pulls) github.setHead(pull.repo, pull.number, pull.sha)
  // A token in the shell would win over the fake's (and go to the fake): the environment unsets them.
  const exports = ['unset GH_TOKEN GITHUB_TOKEN', ...Object.entries(github.ghEnv).map(([name, value]) => `export ${name}=${shellQuote(value)}`)].join('\n')
  // `. FILE` looks a name without a slash up on PATH: the hint names it as a path.
  const sourced = values['write-env'] === undefined || values['write-env'].includes('/') ? values['write-env'] : `./${values['write-env']}`
  const envFile = values['write-env'] === undefined ? undefined : isAbsolute(values['write-env']) ? values['write-env'] : resolve(io.cwd, values['write-env'])
  if (envFile !== undefined) writeFileSync(envFile, `# gh's environment for the fake GitHub at ${github.url} (hookpilot dev github)\n${exports}\n`, { mode: 0o600 })
  const first = pulls[0]
  const admin = github.url === DEFAULT_URL ? '' : ` --url ${github.url}`
  io.stdout.write(
    `Fake GitHub API at ${github.url}, token for ${github.login}: ${github.token}\n` +
      `Pull requests: ${pulls.map((p) => `${p.repo}#${p.number} at ${p.sha.slice(0, 7)}`).join(', ')}\n\n` +
      `gh uses it with this environment${envFile === undefined ? '' : ` (also in ${envFile}: ". ${sourced ?? ''}" loads it)`}; ` +
      `give it to "hookpilot serve" for a github_comment target:\n${exports}\n` +
      `Octokit, or platforms.github_app.api_url, uses ${github.url} as the API's root.\n\n` +
      `Move a head as a push does: hookpilot dev github head ${first?.repo}#${first?.number} <sha>${admin}\n` +
      `See the comments:           hookpilot dev github show ${first?.repo}#${first?.number}${admin}\n` +
      `Requests, one a line (Ctrl-C stops; nothing is kept):\n`,
  )
  await new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop).off('SIGTERM', stop)
      done()
    }
    process.on('SIGINT', stop).on('SIGTERM', stop)
  })
  await github.close()
  if (envFile !== undefined) rmSync(envFile, { force: true })
  return 0
}

/** `OWNER/REPO#N`, checked. */
function pullRef(text: string): PullRef {
  const match = /^([\w.-]+\/[\w.-]+)#(\d+)$/.exec(text)
  if (match === null) throw new UsageError(`"${text}" is not a pull request: write OWNER/REPO#NUMBER, e.g. octocat/hello-world#42.`)
  return { repo: match[1] ?? '', number: Number(match[2]) }
}

async function moveHead(url: string, pull: PullRef, sha: string, parents: readonly string[], io: CliIO): Promise<number> {
  const answer = await call(url, 'PUT', pull, io, JSON.stringify(parents.length === 0 ? { sha } : { sha, parents }))
  if (answer === undefined) return 1
  io.stdout.write(`${pull.repo}#${pull.number} head is now ${answer.head}\n`)
  return 0
}

async function show(url: string, pull: PullRef, json: boolean, io: CliIO): Promise<number> {
  const answer = await call(url, 'GET', pull, io)
  if (answer === undefined) return 1
  if (json) {
    io.stdout.write(`${JSON.stringify(answer, null, 2)}\n`)
    return 0
  }
  io.stdout.write(`${answer.repo}#${answer.number} at ${answer.head}, ${answer.comments.length} comment${answer.comments.length === 1 ? '' : 's'}\n`)
  for (const c of answer.comments) {
    const edited = c.edits === 0 ? 'never edited' : `edited ${c.edits} time${c.edits === 1 ? '' : 's'}`
    io.stdout.write(`\ncomment ${c.id} by ${c.login}, ${edited}:\n${c.body.replace(/^/gm, '  ')}\n`)
  }
  return 0
}

/** One call to the fake's admin endpoints; undefined after saying why it failed. */
async function call(url: string, method: 'GET' | 'PUT', pull: PullRef, io: CliIO, body?: string): Promise<PullSummary | undefined> {
  const endpoint = `${url}/_fake/repos/${pull.repo}/pulls/${pull.number}${method === 'PUT' ? '/head' : ''}`
  let res: Response
  try {
    res = await fetch(endpoint, { method, headers: { 'content-type': 'application/json' }, ...(body === undefined ? {} : { body }), signal: AbortSignal.timeout(10_000) })
  } catch (err) {
    const code = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).name
    io.stderr.write(`No fake GitHub answers at ${url} (${code}): start one with "hookpilot dev github", or pass --url where it runs.\n`)
    return undefined
  }
  const answer = (await res.json().catch(() => ({}))) as PullSummary & { message?: string }
  if (res.status === 404) {
    io.stderr.write(`The fake GitHub at ${url} has no pull request ${pull.repo}#${pull.number}: "hookpilot dev github head ${pull.repo}#${pull.number} <sha>" declares it.\n`)
    return undefined
  }
  if (!res.ok) {
    io.stderr.write(`The fake GitHub at ${url} answered ${res.status}: ${answer.message ?? ''}\n`)
    return undefined
  }
  return answer
}

/** A value in single quotes for a POSIX shell. */
function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`
}
