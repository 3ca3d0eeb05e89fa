/**
 * How `hookpilot jobs` prints jobs for a person. Payload text can reach an answer and an error (a PR title the
 * agent echoed), so control characters are shown escaped: nothing printed here can drive the terminal.
 */
import { reasonOf } from '../core/jobs/views/job-filter.js'
import { validHook, validLink } from '../core/jobs/lifecycle/origin.js'
import type { ReasonGroup } from '../core/jobs/views/reason-groups.js'
import type { JobRecord } from '../core/jobs/lifecycle/job-record.js'
import { spoken, type RetrySchedule } from '../core/jobs/lifecycle/retry-schedule.js'
import { printable } from '../core/log/printable.js'
import { usageText } from '../core/usage.js'
import { watchOf } from '../plugins/sources/market/watch-route.js'

/** What `jobs show` knows besides the record: the configuration's retry schedules, and the time. */
export interface ShowContext {
  /** `agent.retry` and `delivery.retry`, to say which try of how many a job is at. */
  readonly schedules?: { readonly agent: RetrySchedule; readonly delivery: RetrySchedule } | undefined
  readonly now?: number | undefined
  /** The delivery target each static route names (`deliver`), to say where a job's answer goes. */
  readonly targets?: ReadonlyMap<string, string> | undefined
}

const EXCERPT = 600
const LABEL = 'earlier error: '.length

/** Jobs as a table, one line each. */
export function jobsTable(jobs: readonly JobRecord[]): string {
  const head = ['ID', 'STATE', 'STAGE', 'ROUTE', 'EVENT', 'DELIVERY', 'TRIES', 'UPDATED', 'WHY']
  const cells = jobs.map((j) => [
    j.id, j.state, j.stage, j.route, j.event, j.deliveryId, String(j.attempts), iso(j.updatedAt), oneLine(why(j) ?? '', 60),
  ].map((c) => printable(c)))
  return table(head, cells)
}

/** One job, a field a line, with an excerpt of its answer. */
export function formatJob(job: JobRecord, context: ShowContext = {}): string {
  const now = context.now ?? Date.now()
  const schedule = job.stage === 'run' ? context.schedules?.agent : context.schedules?.delivery
  const key = job.stage === 'run' ? 'agent.retry' : 'delivery.retry'
  const ofAll = (n: number, next = false) => triesOf(n, schedule, key, job.stage, next)
  const waiting = job.state === 'queued' && job.notBefore > now
  const watch = watchOf(job.route)
  const rows: Array<[string, string | undefined]> = [
    ['id', job.id],
    ['state', job.state],
    ['stage', job.stage === 'run' ? 'run (the agent has not answered yet)' : 'deliver (the answer is stored)'],
    ['route', job.route],
    // A market watch's jobs are its route's: `market:<watch>`.
    ['watch', watch === undefined ? undefined : `${watch} (market watch)`],
    ['event', job.event],
    ['delivery', job.deliveryId],
    // Checked again as it is read: a record written by other code shows no link that is not https.
    ['link', validLink(job.link)],
    ['hook', validHook(job.hook)],
    ['tries', ofAll(job.attempts)],
    // Every start of the agent, a run a crash cut off included: `tries` counts only the current stage's.
    ['agent runs', String(job.runs)],
    // Every run that reported it, added up (a failed run's tokens too): docs/costs.md.
    ['usage', job.usage === undefined ? undefined : usageText(job.usage)],
    ['received', iso(job.receivedAt)],
    ['updated', iso(job.updatedAt)],
    ['finished', job.finishedAt === undefined ? undefined : iso(job.finishedAt)],
    ['next try', waiting ? `${iso(job.notBefore)} (in ${spoken(job.notBefore - now)}), try ${ofAll(job.attempts + 1, true)}` : undefined],
    ['parts sent', job.progress > 0 ? String(job.progress) : undefined],
    ['target', context.targets?.get(job.route)],
    ['posted at', job.url],
    ['group', job.group?.slice(job.group.indexOf('\u0000') + 1)],
    ['covers', job.group === undefined ? undefined : `${job.covers} event(s)`],
    ['replaced by', job.supersededBy === undefined ? undefined : `job ${job.supersededBy}`],
    ['reason', job.note],
    // A done job's last error is history (a retry that later succeeded): shown as such, not as its outcome.
    [job.state === 'done' ? 'earlier error' : 'last error', job.lastError],
  ]
  // One column for every value: as wide as the longest label ("earlier error:") and a space.
  const lines = rows.filter(([, v]) => v !== undefined).map(([k, v]) => `${`${k}:`.padEnd(LABEL)}${printable(v ?? '')}`)
  if (job.answer !== undefined) {
    const cut = job.answer.length > EXCERPT ? `${job.answer.slice(0, EXCERPT)}\n… (${job.answer.length - EXCERPT} more characters)` : job.answer
    lines.push('answer:', ...printable(cut, { keepNewlines: true }).split('\n').map((l) => `  ${l}`))
  }
  return lines.join('\n')
}

/**
 * `2 of 4 (agent.retry)`; past a schedule lowered since the job's tries ran (`2 of 1` would read as a bug), what
 * the schedule now means for it, by the dispatcher's rules: the agent stage runs its next try as the last (a
 * failure ends the job), the delivery stage ends `failed` at its next turn without a try. `next`: `n` is the try to come.
 */
function triesOf(n: number, schedule: RetrySchedule | undefined, key: string, stage: JobRecord['stage'], next: boolean): string {
  if (schedule === undefined) return String(n)
  if (n <= schedule.attempts) return `${n} of ${schedule.attempts} (${key})`
  const lowered = `${key}.attempts is ${schedule.attempts}, lowered since`
  if (!next) return `${n} (${lowered})`
  return stage === 'run' ? `${n}, the last (${lowered}: a failure ends the job)` : `${n}, which will not run (${lowered}: the job ends failed at its turn)`
}

/** Why a job is where it is, in one cell: its failure, its pending retry's reason, or why it was skipped or superseded. */
const why = reasonOf

/** Reason groups as a table: how many, the newest and oldest, the routes, the reason. */
export function reasonTable(groups: readonly ReasonGroup[]): string {
  const head = ['JOBS', 'LATEST', 'EARLIEST', 'ROUTES', 'REASON']
  const cells = groups.map((g) => [String(g.count), iso(g.latest), iso(g.earliest), oneLine(g.routes.join(','), 40), g.reason].map((c) => printable(c)))
  return table(head, cells)
}

function table(head: readonly string[], cells: readonly (readonly string[])[]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)))
  const line = (c: readonly string[]) => c.map((cell, i) => (i === c.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd()
  return [line(head), ...cells.map(line)].join('\n')
}

function iso(ms: number): string {
  return new Date(ms).toISOString()
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}
