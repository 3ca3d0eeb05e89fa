/**
 * `hookpilot dev gitlab`: runs the fake GitLab of src/dev/gitlab/ until Ctrl-C, printing its API root and token
 * (what `platforms.gitlab` needs) and then each request it is sent, one a line. `hookpilot dev gitlab push` moves
 * a merge request's head on a running fake, as a push does.
 */
import { DEFAULT_GITLAB_TOKEN, startFakeGitlab, type FakeGitlabRecord } from '../dev/gitlab/server.js'
import { MR_PATTERN, SHA_PATTERN } from '../dev/gitlab/admin.js'
import { SAMPLE_DIFFS } from '../dev/gitlab/sample.js'
import { parse, toPort, UsageError } from './args.js'
import type { CliIO, Subcommand } from './io.js'

/** Where the fake listens unless told otherwise: beside the fake GitHub's 8645. */
export const DEFAULT_FAKE_GITLAB_PORT = 8647

const DEFAULT_URL = `http://127.0.0.1:${DEFAULT_FAKE_GITLAB_PORT}`
const DEFAULT_MR = 'gitlabhq/gitlab-test!1=da1560886d4f094c3e6c9ef40349f7d38b5d27d7'

const HELP = `Usage: hookpilot dev gitlab [--port N] [--host H] [--mr GROUP/PROJECT!IID[=SHA]]... [--token T]
       hookpilot dev gitlab push GROUP/PROJECT!IID SHA [--url URL]

Runs a fake GitLab API in memory until Ctrl-C: merge requests with their diff versions (a sample diff of two
hunks), notes, discussions (positions checked as GitLab checks them), commit statuses, and the user its token
stands for. It prints what platforms.gitlab needs (api_url and a token), then each request it is sent, one a
line. Nothing it holds survives it.

  push    moves a merge request's head on the running fake (declaring it), as a push does

Options:
      --port N     port to listen on (default: ${DEFAULT_FAKE_GITLAB_PORT}; 0 picks a free one)
      --host H     address to listen on (default: 127.0.0.1)
      --mr M       a merge request to start with (repeatable; default: ${DEFAULT_MR.split('=')[0]}, the one in GitLab's
                   sample Merge Request Hook, at its head)
      --token T    the token clients must send (default: a fixed fake one)
      --url URL    (push) where the fake runs (default: ${DEFAULT_URL})
  -h, --help       show this help
`

const OPTIONS = {
  port: { type: 'string', short: 'p' },
  host: { type: 'string' },
  mr: { type: 'string', multiple: true },
  token: { type: 'string' },
  url: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const

/** `hookpilot dev gitlab ...`. */
export const devGitlab: Subcommand = async (args, io) => {
  const { values, positionals } = parse(args, OPTIONS, 'dev gitlab')
  if (values.help) {
    io.stdout.write(HELP)
    return 0
  }
  const [action, ...rest] = positionals
  if (action === 'push') {
    if (rest.length !== 2) throw new UsageError('push takes a merge request and a SHA: hookpilot dev gitlab push gitlabhq/gitlab-test!1 <sha>.')
    const { project, iid } = mrRef(rest[0] ?? '')
    const head = rest[1] ?? ''
    if (!SHA_PATTERN.test(head)) throw new UsageError(`push takes a commit SHA (7 to 64 hex digits), not "${head}".`)
    const url = (values.url ?? DEFAULT_URL).replace(/\/+$/, '')
    const res = await fetch(`${url}/-/fake/push`, { method: 'POST', body: JSON.stringify({ project, iid, head }) }).catch((err: unknown) => {
      throw new UsageError(`no fake GitLab answers at ${url} (${String(err)}): start one with "hookpilot dev gitlab", or pass --url.`)
    })
    if (!res.ok) throw new UsageError(`the fake GitLab at ${url} refused the push (${res.status}): ${await res.text()}`)
    io.stdout.write(`${project}!${iid} is at ${head.toLowerCase()}\n`)
    return 0
  }
  if (action !== undefined) throw new UsageError(`unknown action "${action}": "hookpilot dev gitlab" runs the fake; its action is push.`)
  return run(values, io)
}

async function run(values: ReturnType<typeof parse<typeof OPTIONS>>['values'], io: CliIO): Promise<number> {
  const mrs = (values.mr ?? [DEFAULT_MR]).map((spec) => {
    const [ref = '', head = DEFAULT_MR.split('=')[1]!] = spec.split('=')
    if (!SHA_PATTERN.test(head)) throw new UsageError(`--mr ${spec}: the head after "=" must be a commit SHA (7 to 64 hex digits).`)
    return { ...mrRef(ref), head }
  })
  if (values.token !== undefined && !/^[\x21-\x7e]{8,200}$/.test(values.token)) throw new UsageError('--token takes 8 to 200 visible characters without spaces.')
  const gitlab = await startFakeGitlab({
    host: values.host,
    port: toPort(values.port, '--port') ?? DEFAULT_FAKE_GITLAB_PORT,
    token: values.token ?? DEFAULT_GITLAB_TOKEN,
    onRequest: (record) => io.stdout.write(`${new Date().toISOString().slice(11, 23)}Z ${line(record)}\n`),
  }).catch((err: unknown) => {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new UsageError('the port is in use (is a fake GitLab already running?): pass --port with another, or 0 for any free one.')
    throw err
  })
  for (const mr of mrs) gitlab.push(mr.project, mr.iid, mr.head, SAMPLE_DIFFS)
  const admin = gitlab.origin === DEFAULT_URL ? '' : ` --url ${gitlab.origin}`
  const first = mrs[0]!
  io.stdout.write(
    `Fake GitLab API at ${gitlab.apiUrl}, token for ${gitlab.user.username}: ${gitlab.token}\n` +
      `Merge requests: ${mrs.map((m) => `${m.project}!${m.iid} at ${m.head.slice(0, 7)}`).join(', ')}\n\n` +
      `platforms:\n  gitlab:\n    enabled: true\n    token: \${GITLAB_TOKEN}     # GITLAB_TOKEN=${gitlab.token}\n    api_url: ${gitlab.apiUrl}\n\n` +
      `Move a head as a push does: hookpilot dev gitlab push ${first.project}!${first.iid} <sha>${admin}\n` +
      `Requests, one a line (Ctrl-C stops; nothing is kept):\n`,
  )
  await new Promise<void>((done) => {
    const stop = () => {
      process.off('SIGINT', stop).off('SIGTERM', stop)
      done()
    }
    process.on('SIGINT', stop).on('SIGTERM', stop)
  })
  await gitlab.close()
  return 0
}

/** `group/project!iid`, checked. */
function mrRef(text: string): { project: string, iid: number } {
  const match = MR_PATTERN.exec(text)
  if (match === null) throw new UsageError(`"${text}" is not a merge request: write GROUP/PROJECT!IID, e.g. gitlabhq/gitlab-test!1.`)
  return { project: match[1]!, iid: Number(match[2]) }
}

function line(record: FakeGitlabRecord): string {
  return `${record.method} ${record.target} → ${record.status}${record.user === undefined ? '' : ` ${record.user}`}${record.note === undefined ? '' : ` · ${record.note}`}`
}
