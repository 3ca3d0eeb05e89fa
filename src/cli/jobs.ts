/**
 * `hookpilot jobs list | show | retry | purge`: what operators see and do with the gateway's jobs, from another
 * terminal while `hookpilot serve` runs (it picks a retried job up within a second or two) or while it does not.
 * The bulk replay is jobs-replay.ts; the filter flags are jobs-filter.ts.
 */
import { dirname, isAbsolute, resolve } from 'node:path'
import { loadConfig } from '../index.js'
import { jobPages } from '../core/jobs/views/job-pages.js'
import { reasonGroups } from '../core/jobs/views/reason-groups.js'
import type { JobFilter, RetryMode } from '../core/jobs/lifecycle/jobs-view.js'
import type { JobRecord } from '../core/jobs/lifecycle/job-record.js'
import { parse, UsageError } from './args.js'
import { suggest } from '../util/suggest.js'
import { duration, FILTER_OPTIONS, jobFilter } from './jobs-filter.js'
import { formatJob, jobsTable, reasonTable, type ShowContext } from './jobs-format.js'
import { replay } from './jobs-replay.js'
import { scheduleOf } from '../core/jobs/lifecycle/retry-schedule.js'
import { printableJson } from '../core/log/printable.js'
import { openJobs } from './jobs-store.js'
import { GatewayError } from '../core/errors.js'
import type { CliIO, Subcommand } from './io.js'

const HELP = `Usage: hookpilot jobs <command> [options]

Commands:
  list [filters] [--json]   jobs, newest first (states: queued, running, done, skipped, superseded, failed;
                          default limit 50)
  list --by reason [filters]
                          failed jobs (or --state S) grouped by reason: how many, when, which routes
  show <id> [--json]      one job: route, event, delivery id, state, attempts, times, last error, answer excerpt
  retry <id> [--rerun-agent | --resend-answer]
                          queue a finished job again: a failed one resumes where it failed (its stored answer
                          is delivered without a new agent run), any other runs again from the start
  retry --state S [filters] [--rerun-agent | --resend-answer] [--dry-run]
                          queue again every job in state S (failed, skipped, superseded, done) the filters
                          match, a page at a time; says what it will do, then how many it did
  purge --older-than AGE  delete done and failed jobs that finished more than AGE ago (30m, 12h, 7d)

Filters:
  --state S               queued, running, done, skipped, superseded, failed
  --route R               jobs of one route
  --since T, --until T    jobs that last changed (a finished job: ended) after / before T: an age (30m, 2h,
                          7d) or a date and time (2025-06-01T14:00:00Z); a replay's window ends when it starts
  --reason TEXT           jobs whose reason holds TEXT, or matches it as a glob when it has * or ?
                          (any case): --reason 'HTTP 502', --reason 'agent timed out*'
  --limit N               at most N jobs

Replay modes:
  --rerun-agent           run the agent again, even for a job whose answer is stored
  --resend-answer         deliver the stored answer again without a new agent run (jobs without one are left)
  --dry-run               list what would be queued, change nothing

Options:
  -c, --config FILE       configuration file (default: ./config.yaml); the state file is found from it
  -h, --help              show this help

Works against the state store the config names (state.driver sqlite or redis), whether or not hookpilot serve runs.
`

/** The subcommands of `hookpilot jobs`. */
const JOBS_COMMANDS: readonly string[] = ['list', 'show', 'retry', 'purge']

/** Runs a jobs subcommand. */
export const jobs: Subcommand = async (args, io) => {
  const now = Date.now()
  const { values, positionals } = parse(args, {
    config: { type: 'string', short: 'c', default: 'config.yaml' },
    ...FILTER_OPTIONS,
    by: { type: 'string' },
    json: { type: 'boolean' },
    'rerun-agent': { type: 'boolean' },
    'resend-answer': { type: 'boolean' },
    'dry-run': { type: 'boolean' },
    'older-than': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  }, 'jobs')
  const [command, ...rest] = positionals
  if (values.help || command === undefined) {
    ;(values.help ? io.stdout : io.stderr).write(HELP)
    return values.help ? 0 : 2
  }
  if (!JOBS_COMMANDS.includes(command)) {
    const close = suggest(command, JOBS_COMMANDS)
    throw new UsageError(`unknown jobs command "${command}"${close === undefined ? '' : ` (did you mean "${close}"?)`}; use list, show, retry or purge.`)
  }
  if (values.by !== undefined && values.by !== 'reason') throw new UsageError(`--by takes reason, not "${values.by}".`)
  if (values['rerun-agent'] && values['resend-answer']) throw new UsageError('--rerun-agent and --resend-answer are two ways to replay a job: choose one.')
  const filter = jobFilter(values, now)
  const mode: RetryMode = values['rerun-agent'] ? 'rerun-agent' : values['resend-answer'] ? 'resend-answer' : 'resume'
  const configPath = isAbsolute(values.config) ? values.config : resolve(io.cwd, values.config)
  const config = await loadConfig(configPath, { env: io.env, lenientEnv: true })
  const open = await openJobs(config, dirname(configPath)).catch((err: unknown) => {
    if (!GatewayError.is(err) || err.code !== 'ERR_STATE_MISSING') throw err
    io.stderr.write(`${err.message}\n`)
    return undefined
  })
  if (!open) return command === 'list' ? 0 : 1
  try {
    switch (command) {
      case 'list':
        if (values.by === 'reason') return await byReason(open.jobs, io, { ...filter, state: filter.state ?? 'failed' }, values.json === true)
        return await list(open.jobs, io, { ...filter, limit: filter.limit ?? 50 }, values.json === true)
      case 'show':
        return await show(open.jobs, io, oneId(rest, 'show'), values.json === true, {
          schedules: { agent: scheduleOf(config.agent.retry), delivery: scheduleOf(config.delivery.retry) },
          // The route as the configuration names it now (a subscription's route is not in it: no line then).
          targets: new Map(Object.entries(config.platforms.webhook.extra.routes).map(([name, route]) => [name, route.deliver])),
        })
      case 'retry':
        if (rest.length === 0 && values.state !== undefined) return await replay(open.jobs, io, { filter, mode, dryRun: values['dry-run'] === true, now })
        if (values.state !== undefined || values['dry-run']) throw new UsageError('retry takes one job id, or --state S with filters (and --dry-run) for many: not both.')
        return await retry(open.jobs, io, oneId(rest, 'retry'), mode)
      default:
        return await purge(open.jobs, io, values['older-than'])
    }
  } finally {
    await open.close()
  }
}

type View = Awaited<ReturnType<typeof openJobs>>['jobs']

async function list(view: View, io: CliIO, filter: JobFilter, json: boolean): Promise<number> {
  const found = await view.list(filter)
  if (json) io.stdout.write(printableJson(found.map(withoutAnswer), 2) + '\n')
  else io.stdout.write(found.length === 0 ? 'No jobs match.\n' : jobsTable(found) + '\n')
  return 0
}

/** The jobs `filter` matches, grouped by reason, read a page at a time (however many there are). */
async function byReason(view: View, io: CliIO, filter: JobFilter, json: boolean): Promise<number> {
  const grouping = reasonGroups()
  for await (const page of jobPages(view, filter)) for (const job of page) grouping.add(job)
  const groups = grouping.groups()
  if (json) io.stdout.write(printableJson(groups, 2) + '\n')
  else io.stdout.write(groups.length === 0 ? 'No jobs match.\n' : `${reasonTable(groups)}\n\nReplay a group: hookpilot jobs retry --state ${filter.state ?? 'failed'} --reason '<reason>' [--dry-run]\n`)
  return 0
}

async function show(view: View, io: CliIO, id: string, json: boolean, context: ShowContext): Promise<number> {
  const job = await view.get(id)
  if (!job) return notFound(io, id)
  io.stdout.write(json ? printableJson(job, 2) + '\n' : formatJob(job, context) + '\n')
  return 0
}

async function retry(view: View, io: CliIO, id: string, mode: RetryMode): Promise<number> {
  const job = await view.retry(id, mode)
  if (!job) return notFound(io, id)
  const how = job.stage === 'deliver' ? 'delivering its stored answer again, without a new agent run' : 'running the agent again from the start'
  io.stdout.write(`Job ${job.id} (route ${job.route}, delivery ${job.deliveryId}) is queued again: ${how}. A running gateway picks it up within a second or two; otherwise at its next start.\n`)
  return 0
}

async function purge(view: View, io: CliIO, olderThan: string | undefined): Promise<number> {
  if (olderThan === undefined) throw new UsageError('purge needs --older-than AGE, e.g. --older-than 7d (units: s, m, h, d).')
  const ms = duration(olderThan, '--older-than')
  const before = Date.now() - ms
  const n = await view.purge(before)
  io.stdout.write(`Purged ${n} finished job${n === 1 ? '' : 's'} (done or failed) that ended more than ${olderThan} ago.\n`)
  // What the purge left although it ended before the cutoff: done (skipped, superseded) jobs inside the de-dup
  // window, which hold their delivery id. Said, so "Purged 0" is not read as "nothing was old enough".
  let kept = 0
  for (const state of ['done', 'skipped', 'superseded'] as const) {
    kept += (await view.list({ state, limit: Number.MAX_SAFE_INTEGER })).filter((j) => j.finishedAt !== undefined && j.finishedAt < before).length
  }
  if (kept > 0) {
    io.stdout.write(`Kept ${kept} done job${kept === 1 ? '' : 's'} that ended within the de-dup window: each holds its delivery id, so a redelivery of its event is answered "duplicate" instead of running again. They can be purged once the window (1 hour after each ended) has passed.\n`)
  }
  return 0
}

function notFound(io: CliIO, id: string): number {
  io.stderr.write(`No job ${JSON.stringify(id)}. Run "hookpilot jobs list" for the ids.\n`)
  return 1
}

function withoutAnswer(job: JobRecord): Omit<JobRecord, 'answer'> {
  const { answer: _answer, ...rest } = job
  return rest
}

function oneId(rest: readonly string[], command: string): string {
  if (rest.length !== 1) throw new UsageError(`jobs ${command} takes one job id (see "hookpilot jobs list"), got ${rest.length === 0 ? 'none' : rest.join(' ')}.`)
  return rest[0] ?? ''
}
