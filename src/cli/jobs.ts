/**
 * `hookpilot jobs list | show | retry | purge`: what operators see and do with the gateway's jobs, from another
 * terminal while `hookpilot serve` runs (it picks a retried job up within a second or two) or while it does not.
 */
import { dirname, isAbsolute, resolve } from 'node:path'
import { loadConfig } from '../index.js'
import type { JobRecord, JobState } from '../core/jobs/state-backend.js'
import { parse, UsageError } from './args.js'
import { formatJob, jobsTable, type ShowContext } from './jobs-format.js'
import { scheduleOf } from '../core/jobs/retry-schedule.js'
import { printableJson } from '../core/log/printable.js'
import { openJobs } from './jobs-store.js'
import { GatewayError } from '../core/errors.js'
import type { CliIO, Subcommand } from './io.js'

const HELP = `Usage: hookpilot jobs <command> [options]

Commands:
  list [--state S] [--route R] [--limit N] [--json]
                          jobs, newest first (S: queued, running, done, failed; default limit 50)
  show <id> [--json]      one job: route, event, delivery id, state, attempts, times, last error, answer excerpt
  retry <id>              queue a done or failed job again: a failed one resumes where it failed (its stored
                          answer is delivered without a new agent run), a done one runs again from the start
  purge --older-than AGE  delete done and failed jobs that finished more than AGE ago (30m, 12h, 7d)

Options:
  -c, --config FILE       configuration file (default: ./config.yaml); the state file is found from it
  -h, --help              show this help

Works against the state store the config names (state.driver sqlite or redis), whether or not hookpilot serve runs.
`

const STATES: readonly JobState[] = ['queued', 'running', 'done', 'skipped', 'superseded', 'failed']

/** Runs a jobs subcommand. */
export const jobs: Subcommand = async (args, io) => {
  const { values, positionals } = parse(args, {
    config: { type: 'string', short: 'c', default: 'config.yaml' },
    state: { type: 'string' },
    route: { type: 'string' },
    limit: { type: 'string' },
    json: { type: 'boolean' },
    'older-than': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  }, 'jobs')
  const [command, ...rest] = positionals
  if (values.help || command === undefined) {
    ;(values.help ? io.stdout : io.stderr).write(HELP)
    return values.help ? 0 : 2
  }
  if (!['list', 'show', 'retry', 'purge'].includes(command)) throw new UsageError(`unknown jobs command "${command}"; use list, show, retry or purge.`)
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
        return await list(open.jobs, io, {
          state: jobState(values.state), route: values.route, limit: whole(values.limit, '--limit') ?? 50, json: values.json === true,
        })
      case 'show':
        return await show(open.jobs, io, oneId(rest, 'show'), values.json === true, {
          schedules: { agent: scheduleOf(config.agent.retry), delivery: scheduleOf(config.delivery.retry) },
          // The route as the configuration names it now (a subscription's route is not in it: no line then).
          targets: new Map(Object.entries(config.platforms.webhook.extra.routes).map(([name, route]) => [name, route.deliver])),
        })
      case 'retry':
        return await retry(open.jobs, io, oneId(rest, 'retry'))
      default:
        return await purge(open.jobs, io, values['older-than'])
    }
  } finally {
    await open.close()
  }
}

type View = Awaited<ReturnType<typeof openJobs>>['jobs']

async function list(view: View, io: CliIO, filter: { state: JobState | undefined; route: string | undefined; limit: number; json: boolean }): Promise<number> {
  const found = await view.list(filter)
  if (filter.json) io.stdout.write(printableJson(found.map(withoutAnswer), 2) + '\n')
  else io.stdout.write(found.length === 0 ? 'No jobs match.\n' : jobsTable(found) + '\n')
  return 0
}

async function show(view: View, io: CliIO, id: string, json: boolean, context: ShowContext): Promise<number> {
  const job = await view.get(id)
  if (!job) return notFound(io, id)
  io.stdout.write(json ? printableJson(job, 2) + '\n' : formatJob(job, context) + '\n')
  return 0
}

async function retry(view: View, io: CliIO, id: string): Promise<number> {
  const job = await view.retry(id)
  if (!job) return notFound(io, id)
  const how = job.stage === 'deliver' ? 'delivering its stored answer again, without a new agent run' : 'running the agent again from the start'
  io.stdout.write(`Job ${job.id} (route ${job.route}, delivery ${job.deliveryId}) is queued again: ${how}. A running gateway picks it up within a second or two; otherwise at its next start.\n`)
  return 0
}

async function purge(view: View, io: CliIO, olderThan: string | undefined): Promise<number> {
  if (olderThan === undefined) throw new UsageError('purge needs --older-than AGE, e.g. --older-than 7d (units: s, m, h, d).')
  const ms = duration(olderThan)
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

function jobState(value: string | undefined): JobState | undefined {
  if (value === undefined) return undefined
  if (!(STATES as readonly string[]).includes(value)) throw new UsageError(`--state takes one of ${STATES.join(', ')}, not "${value}".`)
  return value as JobState
}

function whole(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`${flag} takes a whole number of at least 1, not "${value}".`)
  return Number(value)
}

const UNITS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** `30m`, `12h`, `7d` in milliseconds. */
export function duration(text: string): number {
  const match = /^(\d+)([smhd])$/.exec(text.trim())
  if (!match) throw new UsageError(`--older-than takes an age such as 30m, 12h or 7d (units: s, m, h, d), not "${text}".`)
  return Number(match[1]) * (UNITS[match[2] ?? 'd'] ?? 0)
}
