/**
 * `hookpilot jobs retry --state failed|skipped|superseded|done [filters] [--rerun-agent | --resend-answer]
 * [--dry-run]`: after an incident, every job it left behind queued again in one command, a page at a time
 * (one page of records in memory however many match), beside a running gateway or not. It says what it will
 * do, a line per job, then how many it did. A replayed job is queued, so a second run finds it no longer in the
 * state it asked for; and the window ends when the command starts, so a job that fails again while it runs is
 * not replayed twice by it.
 */
import { GatewayError, messageOf } from '../core/errors.js'
import { jobPages } from '../core/jobs/views/job-pages.js'
import type { FinalState } from '../core/job-state.js'
import type { JobFilter, JobsView, RetryMode } from '../core/jobs/lifecycle/jobs-view.js'
import type { JobRecord } from '../core/jobs/lifecycle/job-record.js'
import { printable } from '../core/log/printable.js'
import { UsageError } from './args.js'
import { describeFilter } from './jobs-filter.js'
import type { CliIO } from './io.js'

const REPLAYABLE: readonly FinalState[] = ['failed', 'skipped', 'superseded', 'done']

const HOW: Readonly<Record<RetryMode, string>> = {
  'resume': 'a failed job resumes where it failed (a stored answer is delivered without a new agent run); any other runs the agent again',
  'rerun-agent': 'each runs the agent again from the start (a stored answer is dropped)',
  'resend-answer': 'each delivers its stored answer again without a new agent run (a job without one is left as it is)',
}

/** What to replay and how. */
export interface ReplayOptions {
  readonly filter: JobFilter
  readonly mode: RetryMode
  readonly dryRun: boolean
  /** When the command started: the end of the window, whatever `--until` says later. */
  readonly now: number
}

/** Replays what `options.filter` matches; resolves the exit code. */
export async function replay(view: JobsView, io: CliIO, options: ReplayOptions): Promise<number> {
  const { state } = options.filter
  if (state === undefined || !(REPLAYABLE as readonly string[]).includes(state)) {
    throw new UsageError(`retry --state takes one of ${REPLAYABLE.join(', ')}${state === undefined ? '' : `, not "${state}"`}: only a finished job can be queued again.`)
  }
  const filter: JobFilter = { ...options.filter, until: Math.min(options.filter.until ?? options.now, options.now) }
  const verb = options.dryRun ? 'Would replay' : 'Replaying'
  io.stdout.write(`${verb} ${describeFilter(filter)}: ${HOW[options.mode]}.\n`)
  const counts = { queued: 0, noAnswer: 0, changed: 0 }
  for await (const page of jobPages(view, filter)) {
    for (const job of page) {
      const verdict = await replayOne(view, job, options)
      counts[verdict]++
      io.stdout.write(`  ${printable(job.id)}  ${printable(job.route)}  ${printable(job.deliveryId)}  ${VERDICTS[verdict](options.dryRun)}\n`)
    }
  }
  io.stdout.write(`${summary(counts, options.dryRun)}\n`)
  return 0
}

type Verdict = 'queued' | 'noAnswer' | 'changed'

const VERDICTS: Readonly<Record<Verdict, (dryRun: boolean) => string>> = {
  queued: (dryRun) => (dryRun ? 'would be queued' : 'queued'),
  noAnswer: () => 'left alone: no stored answer to resend',
  changed: () => 'left alone: it changed meanwhile',
}

async function replayOne(view: JobsView, job: JobRecord, options: ReplayOptions): Promise<Verdict> {
  if (options.mode === 'resend-answer' && job.answer === undefined) return 'noAnswer'
  if (options.dryRun) return 'queued'
  try {
    return (await view.retry(job.id, options.mode)) === undefined ? 'changed' : 'queued'
  } catch (err) {
    // Another operator, a redelivery or the retention got to it between the page and the retry.
    if (GatewayError.is(err) && err.code === 'ERR_STATE') return 'changed'
    throw new GatewayError('ERR_STATE', `replaying job ${job.id} failed: ${messageOf(err)}`, { cause: err })
  }
}

function summary(counts: Readonly<Record<Verdict, number>>, dryRun: boolean): string {
  const n = counts.queued
  const head = dryRun
    ? `Dry run: ${n} job${n === 1 ? '' : 's'} would be queued again; nothing was changed.`
    : `Queued ${n} job${n === 1 ? '' : 's'} again. A running gateway picks them up within a second or two; otherwise at its next start.`
  const left = [
    counts.noAnswer > 0 ? `${counts.noAnswer} had no stored answer to resend (replay them with --rerun-agent)` : undefined,
    counts.changed > 0 ? `${counts.changed} changed meanwhile and ${counts.changed === 1 ? 'was' : 'were'} left alone` : undefined,
  ].filter((s) => s !== undefined)
  return left.length === 0 ? head : `${head} ${left.join('; ')}.`
}
