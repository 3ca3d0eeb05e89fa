/**
 * One try of a job: render the prompt, run the agent within its bounds, store the answer, deliver it. The
 * dispatcher never sleeps: a delivery that can be retried returns `retry` at a time and the queue holds the
 * job until then. Every failure is logged with the delivery id and returned as an outcome, which leaves the
 * delivery id redeliverable. It is built once per gateway: what differs from one job to the next (the runner
 * and the environment of the job's own) is given with each try.
 */
import { DeliveryError, GatewayError, messageOf } from '../errors.js'
import type { GatewayEvents } from '../events.js'
import type { JobOutcome, JobWorker, LeasedJob } from '../jobs/lifecycle/state-backend.js'
import type { JobRecord } from '../jobs/lifecycle/job-record.js'
import type { RouteTable } from '../routes/route-table.js'
import { buildAgentPrompt, type AgentPrompt } from './prompt.js'
import { DEFAULT_AGENT_RETRY, DEFAULT_DELIVERY_RETRY, lastTry, retryDelay, type RetrySchedule } from '../jobs/lifecycle/retry-schedule.js'
import { isFinal, MAX_RUNS } from '../jobs/lifecycle/transitions.js'
import { isClosingMark } from '../jobs/lifecycle/groups.js'
import { renderExtra } from '../routes/template.js'
import type { NoteStore } from '../note-types.js'
import type { TemplateVariables } from '../routes/template.js'
import type { AgentEnvironment, AgentResult, AgentInput, AgentRunner, Clock, DeliveryTarget, EndedJob, FollowUp, LogFields, Logger, Route, AgentContext, ModelLimits } from '../types.js'
import { admitJob, type AdmitParts } from '../pipeline/admit.js'
import { dedupKeyOf } from '../jobs/lifecycle/dedup-key.js'
import { groupOf } from '../routes/concurrency.js'
import type { PolicyGate } from '../policy/gate.js'
import { pullRequestOf } from '../policy/host-of.js'
import { budgetNotice } from '../policy/replies.js'
import type { PullRequestHost } from '../code-host-types.js'
import { priced, usageOf, usageText, type PriceTable, type RunUsage } from '../usage.js'
import type { Budgets, Refusal, RepositoryBudgets, Reservation } from './budgets.js'
import { budgetSubjects } from './budget-subjects.js'
import { updateNote } from '../jobs/lifecycle/notes.js'

/** What the dispatcher is composed of. */
export interface DispatcherParts {
  /** Every route a job may name (static, subscribed, a source's). */
  readonly routes: RouteTable
  readonly targets: ReadonlyMap<string, DeliveryTarget>
  readonly log: Logger
  readonly skillsDir: string
  /** `agent.timeout_seconds`, in ms. */
  readonly timeoutMs: number
  readonly clock?: Clock | undefined
  /** `delivery.retry`: how a delivery's passing failures are tried again. Defaults to 8 tries over about 6 h. */
  readonly retry?: RetrySchedule | undefined
  /** `agent.retry`: how a failed or timed-out agent run is tried again. Defaults to 5 tries over about 30 min. */
  readonly agentRetry?: RetrySchedule | undefined
  /** The jitter's source of randomness (tests replace it). */
  readonly random?: (() => number) | undefined
  /** Where agent runs and delivery tries are reported (metrics subscribe there). */
  readonly events?: GatewayEvents | undefined
  /**
   * Applied to every failure reason (stored with the job, shown by `hookpilot jobs`) and to the agent's answer
   * before it is stored or delivered: an agent talked into printing a secret must not post it.
   */
  readonly redact?: ((text: string) => string) | undefined
  /**
   * Where a follow-up job a target asks for ({@link FollowUp}: the pull request's head moved during the run) is
   * admitted, as an event is: de-dup by its delivery id, the route's rate limit, the store. Without it a
   * follow-up is logged and dropped.
   */
  readonly admission?: AdmitParts | undefined
  /** The state backend's notes, given to every delivery target (undefined on a backend that keeps none). */
  readonly notes?: NoteStore | undefined
  /**
   * The policy of routes with a `policy` section (docs/policy.md): before the agent runs, a repository's policy
   * file and the pull request's commands and pause decide whether it runs, with which instructions and settings.
   */
  readonly policy?: PolicyGate | undefined
  /** `costs.prices`: prices the usage of a run whose agent reported no cost. */
  readonly prices?: PriceTable | undefined
  /**
   * `costs.budgets`, and those a repository's policy file sets: a run starts only with room in each of its
   * budgets (budgets.ts).
   */
  readonly budgets?: Budgets | undefined
  /**
   * `costs.budgets.when_exceeded`: `skip` (the job ends `skipped`, the default) or `wait` (a day's or a month's
   * budget holds the job in the queue until it renews; a pull request's never renews, so its job is skipped).
   */
  readonly whenExceeded?: 'skip' | 'wait' | undefined
  /** `costs.model_limits`: a run starts only when its model has room soon; each call of the run takes its turn. */
  readonly modelLimits?: ModelLimits | undefined
}

type Fields = Readonly<Record<string, string>>

/**
 * The variables the leased job's agent gets of its own (a GitHub App's installation token for the event's
 * repository), made right before its run, under the run's signal. A rejection fails the run before the agent
 * starts: an agent without its token could not do its work, and must not fall back to another credential.
 */
export type JobEnvironment = (ctx: { readonly signal: AbortSignal; readonly log: Logger }) => Promise<AgentEnvironment>

/** One try of a leased job with `runner` (and `environment`, when the job has one of its own). */
export interface Dispatcher {
  dispatch(leased: LeasedJob, runner: AgentRunner, environment?: JobEnvironment): Promise<JobOutcome>
  /** The runs a job may take before the lifecycle counts a crash loop: never below the agent's own retries. */
  readonly maxRuns: number
  /** Counts a job its backend ended without a try (see {@link JobWorker.ended}). */
  ended(job: JobRecord): void
  /** Tells the route's target of a leased job the pool ended without running it (see {@link JobWorker.endedUnrun}). */
  endedUnrun(leased: LeasedJob, outcome: JobOutcome): Promise<void>
}

/**
 * The queue's worker: each leased job dispatched with `runner` and, when `environmentOf` gives one, the job's
 * own environment.
 *
 * @example
 * ```ts
 * state.queue.start(workerOf(createDispatcher(parts), runner))
 * ```
 */
export function workerOf(dispatcher: Dispatcher, runner: AgentRunner, environmentOf?: (leased: LeasedJob) => JobEnvironment | undefined): JobWorker {
  const work = (leased: LeasedJob) => dispatcher.dispatch(leased, runner, environmentOf?.(leased))
  return Object.assign(work, { maxRuns: dispatcher.maxRuns, ended: dispatcher.ended, endedUnrun: dispatcher.endedUnrun })
}

/** Runs the agent, its job's environment made first when it has one (`ctx.env` then holds it). */
async function runWith(runner: AgentRunner, environment: JobEnvironment | undefined, input: AgentInput, ctx: AgentContext): Promise<AgentResult> {
  if (environment === undefined) return runner.run(input, ctx)
  let env: AgentEnvironment
  try {
    env = { ...ctx.env, ...(await environment({ signal: ctx.signal, log: ctx.log })) }
  } catch (err) {
    return { ok: false, reason: `the agent's environment could not be made: ${messageOf(err)}` }
  }
  return runner.run(input, { ...ctx, env })
}

/** Builds the dispatcher the queue's worker calls for every job. */
export function createDispatcher(parts: DispatcherParts): Dispatcher {
  const { routes, targets, log, skillsDir, timeoutMs } = parts
  const retry = parts.retry ?? DEFAULT_DELIVERY_RETRY
  const agentRetry = parts.agentRetry ?? DEFAULT_AGENT_RETRY
  const clock = parts.clock ?? Date.now
  const redact = parts.redact ?? ((text: string) => text)

  const fail = (fields: LogFields, message: string, why: string): JobOutcome => {
    const reason = redact(why)
    log.error(message, { ...fields, reason })
    return { kind: 'failed', reason }
  }

  /**
   * A passing failure of try `attempt`: the next try when its `Retry-After` said, else at a time on `schedule`,
   * or, after the schedule's last try, the job's failure, saying that the tries ran out.
   */
  const retryOrFail = (fields: LogFields, message: string, why: string, schedule: RetrySchedule, key: string, attempt: number, retryAfterMs?: number): JobOutcome => {
    if (lastTry(schedule, attempt)) {
      return fail(fields, message, schedule.attempts === 1 ? why : `${why} (gave up after ${attempt} tries; ${key}.attempts is ${schedule.attempts})`)
    }
    const delay = retryDelay(schedule, attempt, retryAfterMs, parts.random)
    const reason = redact(why)
    log.warn(`${message}, retrying`, { ...fields, reason, attempt, retry_in_ms: delay })
    return { kind: 'retry', at: clock() + delay, reason }
  }

  async function prompt(leased: LeasedJob, route: Route, fields: Fields, variables: TemplateVariables): Promise<AgentPrompt> {
    const { job, payload } = leased
    const event = { route: job.route, type: job.event, deliveryId: job.deliveryId, payload, receivedAt: job.receivedAt }
    return buildAgentPrompt({ event, route }, skillsDir, log, fields, variables)
  }

  /**
   * What the route's target adds to the prompt (the last reviewed head, the mode of this review), asked before the
   * run; the outcome that ends this try when it cannot say (a passing failure is retried on the agent's schedule).
   */
  async function variablesOf(leased: LeasedJob, route: Route, fields: Fields): Promise<{ readonly variables: TemplateVariables } | { readonly outcome: JobOutcome }> {
    const target = targets.get(route.deliver)
    if (target?.promptVariables === undefined) return { variables: {} }
    const { job, payload } = leased
    try {
      const request = { route: route.name, event: job.event, deliveryId: job.deliveryId, extra: renderExtra(route, payload), payload }
      return { variables: await target.promptVariables(request, { signal: leased.signal, log, notes: parts.notes }) }
    } catch (err) {
      const why = `cannot build the prompt: its values from the ${route.deliver} target: ${messageOf(err)}`
      if (DeliveryError.is(err) && err.retryable) return { outcome: retryOrFail(fields, 'agent run failed', why, agentRetry, 'agent.retry', job.attempts, err.retryAfterMs) }
      return { outcome: fail(fields, 'agent run failed', why) }
    }
  }

  /**
   * Runs the agent; resolves its answer, or the outcome that ends this try. `repository`: what the policy gate,
   * asked first, let the repository's policy file decide (instructions, budgets tighter than the gateway's).
   */
  async function runAgent(leased: LeasedJob, agent: Agent, route: Route, fields: Fields, repository: RepositoryRun = {}): Promise<{ text: string } | JobOutcome> {
    const { instructions } = repository
    const { runner } = agent
    const { job } = leased
    const asked = await variablesOf(leased, route, fields)
    if ('outcome' in asked) return asked.outcome
    let built: AgentPrompt
    try {
      // The repository's path-scoped instructions (its policy file) are `{review.instructions}`, beside the target's values.
      built = await prompt(leased, route, fields, instructions === undefined ? asked.variables : { ...asked.variables, 'review.instructions': instructions })
    } catch (err) {
      return fail(fields, 'agent run failed', `cannot build the prompt: ${messageOf(err)}`)
    }
    // A model whose limit has no room for a while: the job waits for it in the queue, not in a worker slot.
    const limits = parts.modelLimits
    if (limits !== undefined && runner.model !== undefined && limits.limited(runner.model)) {
      const wait = await limits.wait(runner.model).catch(() => 0)
      if (wait > IN_RUN_WAIT_MS) {
        log.info('the model API\'s limit has no room yet: the job waits in the queue', { ...fields, model: runner.model, wait_ms: Math.round(wait) })
        return { kind: 'wait', at: clock() + wait, reason: `waiting for the model API's limit (costs.model_limits.${runner.model})` }
      }
    }
    // The budgets are asked here, at the lease, never on the request path: the 202 paid for nothing. The policy
    // was read before (at the job's start), so the repository's budgets tighten the gateway's in this one decision;
    // nothing between the reservation and the run can end the try and leave the room held.
    let reservation: Reservation | undefined
    if (parts.budgets !== undefined) {
      const decided = await parts.budgets.reserve(job.id, leased.payload, runner.maxUsage, clock(), repository.budgets).catch((err: unknown) => new Error(messageOf(err)))
      // The store could not be asked: the run waits for it rather than starting unbudgeted.
      if (decided instanceof Error) return { kind: 'wait', at: clock() + BUDGET_STORE_WAIT_MS, reason: `the budgets could not be read: ${decided.message}` }
      if ('refused' in decided) return refused(leased, route, decided.refused, fields)
      reservation = decided.reserved
    }
    log.info('agent run started', { ...fields, runner: runner.name })
    // The target marks the run (a check in progress) beside it, not before it: a slow code host delays no review.
    const starting = tellStarted(leased, route, asked.variables, fields)
    // One controller and one timer per run, both dropped when the run ends (AbortSignal.any over a long-lived
    // signal plus AbortSignal.timeout left a timer and a dependant signal behind for every event).
    const run = new AbortController()
    const onStop = () => run.abort(leased.signal.reason)
    if (leased.signal.aborted) onStop()
    else leased.signal.addEventListener('abort', onStop, { once: true })
    // cancel_in_progress: a newer event of the group stops this run (the agent's process tree, or the model call).
    // A closed or merged pull request stops it whatever the route says (docs/costs.md): nobody reads its review.
    const cancels = () => route.concurrency?.cancelInProgress === true || closesRun(leased.superseded)
    const onNewer = () => {
      if (cancels()) run.abort(leased.superseded.reason)
    }
    if (leased.superseded.aborted) onNewer()
    else leased.superseded.addEventListener('abort', onNewer, { once: true })
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      run.abort(new DOMException('The agent run timed out', 'TimeoutError'))
    }, timeoutMs)
    // A target that takes a review document says so, and a runner that can ask its model for the schema does.
    const format = targets.get(route.deliver)?.answerFormat?.(route)
    const input: AgentInput = { prompt: built.prompt, parts: built.parts, route: route.name, event: job.event, deliveryId: job.deliveryId, ...(format === undefined ? {} : { format }) }
    const ctx: AgentContext = { signal: run.signal, log, onSpawn: (pid: number) => leased.recordProcess(pid), modelLimits: limits }
    // Through a promise even for a plain-object runner whose run() throws before returning one.
    const started = performance.now()
    const result = await Promise.resolve()
      .then(() => runWith(runner, agent.environment, input, ctx))
      .catch((err: unknown): AgentResult => ({ ok: false, reason: messageOf(err) }))
      .finally(() => {
        clearTimeout(timer)
        leased.signal.removeEventListener('abort', onStop)
        leased.superseded.removeEventListener('abort', onNewer)
      })
    // Whatever the run's outcome, the mark is written before it is completed (the delivery, or the ending told).
    await starting
    const cancelled = !result.ok && !timedOut && !leased.signal.aborted && leased.superseded.aborted && cancels()
    if (cancelled) {
      const why = closesRun(leased.superseded) ? 'its pull request was closed or merged' : 'a newer event of its group came (cancel_in_progress)'
      log.info(`agent run stopped: ${why}`, fields)
      return stale()
    }
    const usage = await recordUsage(leased, route.name, result, fields)
    if (reservation !== undefined) await settle(reservation, usage, fields)
    const interrupted = !result.ok && !timedOut && leased.signal.aborted
    if (!interrupted) {
      const outcome = result.ok ? 'ok' : timedOut ? 'timeout' : 'failed'
      parts.events?.emit('agentRun', { route: route.name, outcome, seconds: (performance.now() - started) / 1000 })
    }
    // An empty answer is the agent's answer, not an outage: another run would most likely say nothing again.
    if (result.ok && result.text.trim() === '') return fail(fields, 'agent run failed', 'the agent answered nothing (an empty answer)')
    if (result.ok) return { text: redact(result.text) }
    if (timedOut) {
      // A model that is slow today (an incident, an overloaded provider) is often quick again later.
      return retryOrFail(fields, 'agent run failed', `timed out after ${timeoutMs / 1000} s (agent.timeout_seconds)`, agentRetry, 'agent.retry', job.attempts)
    }
    if (leased.signal.aborted) {
      const why: unknown = leased.signal.reason
      if (GatewayError.is(why) && why.code === 'ERR_LEASE_LOST') log.warn('agent run stopped: the lease on this job was lost; it posts nothing', fields)
      else log.warn('agent run stopped: the gateway is shutting down; the job runs again at the next start', fields)
      return { kind: 'interrupted' }
    }
    // What another try cannot fix (a program not installed, a rejected key) fails now; the rest is retried.
    if (result.retryable === false) return fail(fields, 'agent run failed', result.reason)
    return retryOrFail(fields, 'agent run failed', result.reason, agentRetry, 'agent.retry', job.attempts, result.retryAfterMs)
  }

  /**
   * Stores and publishes what the run used (priced from `costs.prices` when the agent said no cost), a failed
   * run's too: tokens spent are spent. A plugin's malformed report is dropped with a warning, never summed. A
   * store that refuses the write loses this run's usage, not the run: the try's next write meets the same store.
   */
  async function recordUsage(leased: LeasedJob, route: string, result: AgentResult, fields: Fields): Promise<RunUsage | undefined> {
    if (result.usage === undefined) return undefined
    const checked = usageOf(result.usage)
    if (checked === undefined) {
      log.warn('the runner reported a usage that is not one (token counts must be numbers of 0 or more): not counted', fields)
      return undefined
    }
    const usage = priced(checked, parts.prices ?? {})
    parts.events?.emit('agentUsage', {
      route, model: usage.model ?? 'unknown', inputTokens: usage.inputTokens, outputTokens: usage.outputTokens,
      cachedTokens: usage.cachedTokens ?? 0, costUsd: usage.costUsd,
    })
    log.info('agent run usage', { ...fields, ...usageFields(usage) })
    try {
      await leased.saveUsage(usage)
    } catch (err) {
      log.warn('the run\'s usage could not be stored', { ...fields, reason: messageOf(err) })
    }
    return usage
  }

  /** Settles a run's reservation; a failure leaves it to run out, when it is charged at its reserved amount. */
  async function settle(reservation: Reservation, usage: RunUsage | undefined, fields: Fields): Promise<void> {
    try {
      const { warnings } = await (parts.budgets as Budgets).settle(reservation, usage, clock())
      for (const warning of warnings) log.warn(warning, fields)
    } catch (err) {
      log.error('a run\'s budget reservation could not be settled; it is charged at its reserved amount when it runs out', { ...fields, reason: messageOf(err) })
    }
  }

  /**
   * A run its budget had no room for: it waits for the budget's next period when asked to (and the budget has
   * one), else ends `skipped` naming the budget, and its pull request is told (once: {@link tellRefused}).
   */
  async function refused(leased: LeasedJob, route: Route, refusal: Refusal, fields: Fields): Promise<JobOutcome> {
    const reason = refusal.reason
    parts.events?.emit('budgetRefused', { route: route.name, budget: refusal.kind })
    if (parts.whenExceeded === 'wait' && refusal.renewsAt !== undefined) {
      log.warn('budget has no room: the job waits for it to renew', { ...fields, reason, until: new Date(refusal.renewsAt).toISOString() })
      return { kind: 'wait', at: refusal.renewsAt, reason }
    }
    log.warn('budget has no room: the job is skipped', { ...fields, reason })
    await tellRefused(leased, route, refusal, fields)
    return { kind: 'skipped', reason }
  }

  /**
   * The first refusal of a pull request per route is said on it through the route's target, once across every
   * instance (a note claimed by compare-and-set), so its people know why reviews stopped; later ones are only
   * logged. A target that offers the pull request ({@link PullRequestHost}: GitHub as an App, GitLab) writes the
   * route's notice comment; a review-mode target without one posts reviews only, and its check (completed
   * `neutral` with the reason, through `ended`) says it on every refused head; another target gets the notice
   * as an answer. The notice names the budget and when it renews, never its amounts (the gateway's configuration).
   */
  async function tellRefused(leased: LeasedJob, route: Route, refusal: Refusal, fields: Fields): Promise<void> {
    const pr = budgetSubjects(leased.payload).find((s) => s.kind === 'pull_request')
    if (pr === undefined || parts.notes === undefined) return
    const host = pullRequestOf(targets, route, leased.payload, leased.signal)
    if (host === undefined && targets.get(route.deliver)?.answerFormat?.(route) === 'review') return
    const first = await parts.notes.put(`budget/notice/${route.name}/${pr.subject}`, true, 0, { ttlMs: NOTICE_TTL_MS }).catch(() => undefined)
    if (first === undefined) return
    const notice = budgetNotice(refusal, leased.job.id)
    if (host !== undefined) {
      await host.notice(notice).catch((err: unknown) => log.warn('the budget notice could not be posted', { ...fields, reason: redact(messageOf(err)) }))
      return
    }
    const posted = await deliver(leased, route, notice, 1, fields)
    if (posted.kind !== 'done') log.warn('the budget notice could not be posted', { ...fields, outcome: posted.kind })
  }

  /** `confirmed`: the try's last write (the answer it just stored) confirmed the lease a moment ago. */
  async function deliver(leased: LeasedJob, route: Route, text: string, attempt: number, fields: Fields, confirmed = false, policyExtra: Readonly<Record<string, string>> = {}): Promise<JobOutcome> {
    const { job, payload } = leased
    const target = targets.get(route.deliver)
    if (!target) return fail(fields, 'delivery failed', `no delivery target "${route.deliver}"`)
    const tried = { ...fields, target: target.name, attempt }
    if (attempt > retry.attempts) return fail(tried, 'delivery failed', `gave up after ${retry.attempts} tries (delivery.retry.attempts)`)
    let extra: Record<string, string>
    try {
      // The repository's own settings (its policy file) over the route's: only the keys the gateway allows them.
      extra = { ...renderExtra(route, payload), ...policyExtra }
    } catch (err) {
      return fail(tried, 'delivery failed', `cannot render deliver_extra: ${messageOf(err)}`)
    }
    // The values the target added to the prompt of the job's run, when it added any (a target without
    // promptVariables: none).
    const variables = await runValues(leased)
    const answer = {
      route: route.name, event: job.event, deliveryId: job.deliveryId, text, extra, payload, covers: job.group === undefined ? undefined : job.covers, job: job.id,
      ...(variables === undefined || Object.keys(variables).length === 0 ? {} : { variables }),
    }
    const progress = job.stage === 'deliver' ? job.progress : 0
    try {
      // The post is made only while the store still confirms this try's lease (a worker that lost its job to
      // another during an outage or a freeze posts nothing); each part after the first is fenced by saveProgress.
      // Right after saving the answer (itself a write under the lease) a second confirmation would add nothing.
      if (!confirmed) await leased.confirmLease()
      // The stale guard: the confirmation (or the write that stored the answer) read the record back, so a
      // newer job of the group accepted by now, here or on another instance, drops this answer.
      if (leased.superseded.aborted) {
        log.info('answer dropped: a newer event of its group came before it was posted', tried)
        return stale()
      }
      const receipt = await target.deliver(answer, {
        signal: leased.signal, log, attempt, progress, saveProgress: (done) => leased.saveProgress(done), notes: parts.notes,
      })
      if (receipt && !receipt.posted) {
        const reason = redact(receipt.reason)
        log.info(receipt.outcome === 'superseded' ? 'answer dropped: it is stale' : 'nothing posted', { ...tried, reason })
        if (receipt.outcome === 'superseded' && receipt.followUp !== undefined) await followUp(leased, route, receipt.followUp, tried)
        // The target decided this ending itself: it is not told of it again (ended()).
        return told({ kind: receipt.outcome, reason })
      }
      const url = receipt?.url
      log.info('delivered', url === undefined ? tried : { ...tried, url })
      parts.events?.emit('delivery', { target: target.name, outcome: 'delivered' })
      return { kind: 'done', url }
    } catch (err) {
      const reason = messageOf(err)
      if (GatewayError.is(err) && err.code === 'ERR_LEASE_LOST') {
        log.warn('delivery stopped: the lease on this job was lost; the worker that holds it now delivers', { ...tried, reason })
        return { kind: 'interrupted' }
      }
      if (leased.signal.aborted) {
        log.warn('delivery stopped: the gateway is shutting down; it resumes at the next start', { ...tried, reason })
        return { kind: 'interrupted' }
      }
      // The brand check, not instanceof: a target built against another copy of this package throws its own class.
      const retryable = DeliveryError.is(err) && err.retryable
      if (!retryable) {
        parts.events?.emit('delivery', { target: target.name, outcome: 'failed' })
        return fail(tried, 'delivery failed', reason)
      }
      const outcome = retryOrFail({ ...fields, target: target.name }, 'delivery failed', reason, retry, 'delivery.retry', attempt, DeliveryError.is(err) ? err.retryAfterMs : undefined)
      parts.events?.emit('delivery', { target: target.name, outcome: outcome.kind === 'retry' ? 'retried' : 'failed' })
      return outcome
    }
  }

  /**
   * Queues the job a target asked for when what the answer was about moved on (the pull request's new head),
   * unless a newer event of this job's group was accepted already (that job reviews the new state). Its delivery
   * id names the follow-up, not this try, so a retry or another instance asking again adds nothing.
   */
  async function followUp(leased: LeasedJob, route: Route, next: FollowUp, fields: LogFields): Promise<void> {
    if (leased.superseded.aborted) {
      log.info('no follow-up job: a newer event of its group was accepted and runs next', fields)
      return
    }
    if (parts.admission === undefined) {
      log.warn('no follow-up job: this dispatcher cannot queue one', { ...fields, follow_up: next.key })
      return
    }
    const { job } = leased
    const deliveryId = `follow-up:${next.key}`
    const payloadJson = JSON.stringify(next.payload)
    const added = await admitJob(parts.admission, route, {
      route: route.name, event: next.event ?? job.event, deliveryId, dedupKey: dedupKeyOf(route.name, deliveryId),
      payload: next.payload, payloadJson, receivedAt: clock(), group: groupOf(route.name, route.concurrency, next.payload),
      link: job.link, hook: job.hook,
    }, { route: route.name, delivery: deliveryId, event: next.event ?? job.event }, 'defer')
    const level = added.kind === 'accepted' || added.kind === 'deferred' || added.kind === 'duplicate' ? 'info' : 'warn'
    log[level](`follow-up job: ${added.kind}`, { ...fields, follow_up: deliveryId, ...('jobId' in added ? { follow_up_job: added.jobId } : {}), ...('reason' in added ? { reason: added.reason } : {}) })
  }

  /** The prompt values each try gave its target's `started` (the leased job is the try: nothing to clear). */
  const startedWith = new WeakMap<LeasedJob, Readonly<Record<string, string>>>()

  /**
   * The prompt values of the job's last run: this try's, or, for a later try that did not run the agent (a
   * delivery tried again after a retryable error or a crash, an ending the pool decided), those its run kept in the
   * notes. Undefined when none were kept (a backend without notes, a run before this was kept).
   */
  async function runValues(leased: LeasedJob): Promise<Readonly<Record<string, string>> | undefined> {
    const here = startedWith.get(leased)
    if (here !== undefined || parts.notes === undefined) return here
    const route = routes.get(leased.job.route)
    if (route === undefined || targets.get(route.deliver)?.promptVariables === undefined) return undefined
    const kept = await parts.notes.get(runValuesKey(leased.job.id)).catch(() => undefined)
    const value = kept?.value
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'))
      : undefined
  }

  /**
   * Tells the route's target that the agent is about to run, under the lease, with the values it added to the
   * prompt (the head reviewed). Never rejects: what the target throws is logged and changes nothing.
   */
  async function tellStarted(leased: LeasedJob, route: Route, variables: TemplateVariables, fields: Fields): Promise<void> {
    // Kept for this try's delivery and ending whether or not the target marks starts (AgentAnswer.variables), and
    // in the notes for a later try that delivers the saved answer without running the agent again: the answer is
    // about the head this run read, not the one GitHub reports then.
    startedWith.set(leased, variables)
    if (parts.notes !== undefined && Object.keys(variables).length > 0) {
      const notes = parts.notes
      await updateNote(notes, runValuesKey(leased.job.id), () => ({ value: { ...variables }, result: undefined }), { ttlMs: RUN_VALUES_TTL_MS })
        .catch((err: unknown) => log.warn("the run's prompt values could not be kept for a later delivery", { ...fields, reason: redact(messageOf(err)) }))
    }
    const target = targets.get(route.deliver)
    if (target?.started === undefined) return
    const { job, payload } = leased
    try {
      await leased.confirmLease()
      await target.started({
        route: route.name, event: job.event, deliveryId: job.deliveryId, job: job.id, extra: renderExtra(route, payload), payload,
        attempt: job.attempts, variables,
      }, { signal: leased.signal, log })
    } catch (err) {
      log.warn('the delivery target could not be told that the agent started', { ...fields, target: target.name, reason: redact(messageOf(err)) })
    }
  }

  /**
   * Tells the route's target of a job that ended `skipped`, `superseded` or `failed` without a receipt that
   * decided it (the target knew of those), under the lease: a check it started, or a head it would otherwise
   * leave unmarked, gets its conclusion. What the target throws is logged; the ending stays as it was.
   */
  async function tellEnded(leased: LeasedJob, outcome: JobOutcome, fields: Fields): Promise<void> {
    if (outcome.kind !== 'skipped' && outcome.kind !== 'superseded' && outcome.kind !== 'failed') return
    const { job, payload } = leased
    const route = routes.get(job.route)
    const target = route === undefined ? undefined : targets.get(route.deliver)
    if (route === undefined || target?.ended === undefined) return
    try {
      await leased.confirmLease()
      const ended: EndedJob = {
        route: route.name, event: job.event, deliveryId: job.deliveryId, job: job.id, extra: renderExtra(route, payload), payload,
        outcome: outcome.kind, reason: outcome.reason, variables: await runValues(leased),
      }
      await target.ended(ended, { signal: leased.signal, log })
    } catch (err) {
      log.warn('the delivery target could not be told how the job ended', { ...fields, target: target.name, reason: redact(messageOf(err)) })
    }
  }

  /**
   * A try whose job a newer one of its group replaced: it ends `superseded`. The newer job is named by the job's
   * record (the lifecycle's `outdated` marked it there; `finished` writes it into the note).
   */
  function stale(): JobOutcome {
    return { kind: 'superseded', reason: 'a newer event of its concurrency group came before its answer was posted' }
  }

  /** Endings a target's receipt decided (a WeakSet: the outcome object itself is the mark, nothing to clear). */
  const receipted = new WeakSet<JobOutcome>()
  const told = (outcome: JobOutcome): JobOutcome => {
    receipted.add(outcome)
    return outcome
  }

  async function attempt(leased: LeasedJob, agent: Agent, fields: Fields): Promise<JobOutcome> {
    const { job } = leased
    const route = routes.get(job.route)
    if (!route) return fail(fields, 'job failed', `route "${job.route}" no longer exists`)
    const host = parts.policy === undefined || route.policy === undefined ? undefined : pullRequestOf(targets, route, leased.payload, leased.signal)
    if (job.stage === 'deliver') {
      let settings: Readonly<Record<string, string>> = {}
      if (host !== undefined && parts.policy !== undefined) {
        try {
          settings = await parts.policy.settingsOf(job, leased.payload, route, host)
        } catch (err) {
          return retryOrFail(fields, 'policy check failed', `the pull request or its policy could not be read: ${messageOf(err)}`, retry, 'delivery.retry', job.attempts)
        }
      }
      return deliver(leased, route, job.answer ?? '', job.attempts, fields, false, settings)
    }

    let repository: RepositoryRun = {}
    let settings: Readonly<Record<string, string>> = {}
    if (host !== undefined && parts.policy !== undefined) {
      try {
        const decided = await parts.policy.beforeRun(job, leased.payload, route, host)
        if (decided.kind === 'end') {
          log.info(`policy: ${decided.outcome.kind}`, 'reason' in decided.outcome ? { ...fields, reason: decided.outcome.reason } : fields)
          return decided.outcome
        }
        repository = { instructions: decided.instructions, budgets: decided.budgets }
        settings = decided.extra
      } catch (err) {
        // The code host is unreachable or failing: like a delivery's passing failure, tried again later.
        return retryOrFail(fields, 'policy check failed', `the pull request or its policy could not be read: ${messageOf(err)}`, retry, 'delivery.retry', job.attempts)
      }
    }

    const ran = await runAgent(leased, agent, route, fields, repository)
    if (!('text' in ran)) return ran
    log.info('agent run finished', { ...fields, chars: ran.text.length })
    const silent = ran.text.trim()
    if (route.silentOutputs.includes(silent)) {
      log.info('silent output: nothing delivered', fields)
      return { kind: 'skipped', reason: `the agent answered "${silent.slice(0, 40)}", one of the route's silent_outputs` }
    }
    // Stored before any delivery is tried: after a crash from here on, only the delivery runs again.
    await leased.saveAnswer(ran.text)
    return deliver(leased, route, ran.text, 1, fields, true, settings)
  }

  /** A job that failed for good is said on its pull request (once), for a route with a policy. */
  async function afterOutcome(leased: LeasedJob, outcome: JobOutcome): Promise<void> {
    if (parts.policy === undefined || outcome.kind !== 'failed') return
    const route = routes.get(leased.job.route)
    if (route?.policy === undefined) return
    const host: PullRequestHost | undefined = pullRequestOf(targets, route, leased.payload, leased.signal)
    if (host !== undefined) await parts.policy.afterOutcome(leased.job, leased.payload, route, host, outcome).catch(() => undefined)
  }

  async function dispatch(leased: LeasedJob, runner: AgentRunner, environment?: JobEnvironment): Promise<JobOutcome> {
    const fields = jobFields(leased.job)
    const outcome = await attempt(leased, { runner, environment }, fields)
    if (!receipted.has(outcome)) await tellEnded(leased, outcome, fields)
    await afterOutcome(leased, outcome)
    // Each ending was logged where it was decided; this counts it.
    if (outcome.kind !== 'retry' && outcome.kind !== 'wait' && outcome.kind !== 'interrupted') parts.events?.emit('jobFinished', { route: leased.job.route, outcome: outcome.kind })
    return outcome
  }
  /** A job its backend ended without a try (recovered after it was outdated: superseded) is counted too. */
  const ended = (job: JobRecord) => {
    if (isFinal(job.state)) parts.events?.emit('jobFinished', { route: job.route, outcome: job.state })
  }
  /** A job the pool ended without running it (a crash loop; past its start deadline): a check it started is completed. */
  const endedUnrun = (leased: LeasedJob, outcome: JobOutcome) => tellEnded(leased, outcome, jobFields(leased.job))
  // Its own retries of failed runs must not look like a crash loop to the lifecycle (a run the gateway died in
  // counts against the same budget, never below MAX_RUNS).
  return { dispatch, maxRuns: Math.max(MAX_RUNS, agentRetry.attempts), ended, endedUnrun }
}

/** A wait for the model's limit up to this long is waited out in the run; a longer one in the queue. */
const IN_RUN_WAIT_MS = 2_000
/** The note keeping a job's last run's prompt values (what its answer is about), for a later try's delivery. */
const runValuesKey = (job: string) => `run-values/${job}`
/** How long a run's prompt values are kept: past every delivery retry of its answer. */
const RUN_VALUES_TTL_MS = 14 * 86_400_000
/** How long a try waits when the budgets' store could not be asked. */
const BUDGET_STORE_WAIT_MS = 30_000
/** How long a pull request's budget notice is remembered: about as long as its budget note. */
const NOTICE_TTL_MS = 90 * 86_400_000

/** What the repository's policy file decided of one run: its path-scoped instructions and its budgets. */
interface RepositoryRun {
  readonly instructions?: string | undefined
  readonly budgets?: RepositoryBudgets | undefined
}

/** What one try runs the agent with. */
interface Agent {
  readonly runner: AgentRunner
  readonly environment: JobEnvironment | undefined
}

/** A usage as log fields (JSON logs carry them as numbers). */
export function usageFields(usage: RunUsage): LogFields {
  return {
    ...(usage.model === undefined ? {} : { model: usage.model }),
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    ...(usage.cachedTokens === undefined ? {} : { cached_tokens: usage.cachedTokens }),
    ...(usage.costUsd === undefined ? {} : { cost_usd: Number(usage.costUsd.toFixed(6)) }),
    usage: usageText(usage),
  }
}

/** The log fields that name a job. */
export function jobFields(job: JobRecord): Fields {
  return { route: job.route, delivery: job.deliveryId, event: job.event, job: job.id }
}

/** Whether a try's superseded signal was aborted by the event that closed its pull request (groups.ts, `closingMark`). */
function closesRun(superseded: AbortSignal): boolean {
  const reason: unknown = superseded.reason
  const by = superseded.aborted && typeof reason === 'object' && reason !== null && 'by' in reason ? reason.by : undefined
  return typeof by === 'string' && isClosingMark(by)
}
