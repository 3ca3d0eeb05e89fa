/**
 * One try of a job: render the prompt, run the agent within its bounds, store the answer, deliver it. The
 * dispatcher never sleeps: a delivery that can be retried returns `retry` at a time and the queue holds the
 * job until then. Every failure is logged with the delivery id and returned as an outcome, which leaves the
 * delivery id redeliverable.
 */
import { backoffDelay, type Backoff } from '../../util/backoff.js'
import { DeliveryError, GatewayError, messageOf } from '../errors.js'
import type { GatewayEvents } from '../events.js'
import type { JobOutcome, JobRecord, JobWorker, LeasedJob } from './state-backend.js'
import type { RouteTable } from '../pipeline/pipeline.js'
import { buildAgentPrompt, type AgentPrompt } from './prompt.js'
import { renderTemplate } from '../routes/template.js'
import type { AgentRunner, Clock, DeliveryTarget, LogFields, Logger, Route } from '../types.js'

/** How deliveries are retried: how many tries, and the {@link Backoff} between them. */
export interface RetryPolicy extends Backoff {
  /** Tries in all, the first included. */
  readonly attempts: number
}

/** Five tries over about 15 s, never waiting more than a minute for a `Retry-After`. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 1000, maxDelayMs: 60_000 }

/** What the dispatcher is composed of. */
export interface DispatcherParts {
  readonly routes: RouteTable
  readonly runner: AgentRunner
  readonly targets: ReadonlyMap<string, DeliveryTarget>
  readonly log: Logger
  readonly skillsDir: string
  /** `agent.timeout_seconds`, in ms. */
  readonly timeoutMs: number
  readonly clock?: Clock | undefined
  readonly retry?: RetryPolicy | undefined
  /** Where agent runs and delivery tries are reported (metrics subscribe there). */
  readonly events?: GatewayEvents | undefined
  /**
   * Applied to every failure reason (stored with the job, shown by `hookpilot jobs`) and to the agent's answer
   * before it is stored or delivered: an agent talked into printing a secret must not post it.
   */
  readonly redact?: ((text: string) => string) | undefined
}

type Fields = Readonly<Record<string, string>>

/** Builds the worker the queue calls for every job. */
export function createDispatcher(parts: DispatcherParts): JobWorker {
  const { routes, runner, targets, log, skillsDir, timeoutMs } = parts
  const retry = parts.retry ?? DEFAULT_RETRY
  const clock = parts.clock ?? Date.now
  const redact = parts.redact ?? ((text: string) => text)

  const fail = (fields: LogFields, message: string, why: string): JobOutcome => {
    const reason = redact(why)
    log.error(message, { ...fields, reason })
    return { kind: 'failed', reason }
  }

  async function prompt(leased: LeasedJob, route: Route, fields: Fields): Promise<AgentPrompt> {
    const { job, payload } = leased
    const event = { route: job.route, type: job.event, deliveryId: job.deliveryId, payload, receivedAt: job.receivedAt }
    return buildAgentPrompt({ event, route }, skillsDir, log, fields)
  }

  /** Runs the agent; resolves its answer, or the outcome that ends this try. */
  async function runAgent(leased: LeasedJob, route: Route, fields: Fields): Promise<{ text: string } | JobOutcome> {
    const { job } = leased
    let built: AgentPrompt
    try {
      built = await prompt(leased, route, fields)
    } catch (err) {
      return fail(fields, 'agent run failed', `cannot build the prompt: ${messageOf(err)}`)
    }
    log.info('agent run started', { ...fields, runner: runner.name })
    // One controller and one timer per run, both dropped when the run ends (AbortSignal.any over a long-lived
    // signal plus AbortSignal.timeout left a timer and a dependant signal behind for every event).
    const run = new AbortController()
    const onStop = () => run.abort(leased.signal.reason)
    if (leased.signal.aborted) onStop()
    else leased.signal.addEventListener('abort', onStop, { once: true })
    // cancel_in_progress: a newer event of the group stops this run (the agent's process tree, or the model call).
    const cancels = route.concurrency?.cancelInProgress === true
    const onNewer = () => run.abort(leased.superseded.reason)
    if (cancels && leased.superseded.aborted) onNewer()
    else if (cancels) leased.superseded.addEventListener('abort', onNewer, { once: true })
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      run.abort(new DOMException('The agent run timed out', 'TimeoutError'))
    }, timeoutMs)
    const input = { prompt: built.prompt, parts: built.parts, route: route.name, event: job.event, deliveryId: job.deliveryId }
    const ctx = { signal: run.signal, log, onSpawn: (pid: number) => leased.recordProcess(pid) }
    // Through a promise even for a plain-object runner whose run() throws before returning one.
    const started = performance.now()
    const result = await Promise.resolve()
      .then(() => runner.run(input, ctx))
      .catch((err: unknown) => ({ ok: false as const, reason: messageOf(err) }))
      .finally(() => {
        clearTimeout(timer)
        leased.signal.removeEventListener('abort', onStop)
        leased.superseded.removeEventListener('abort', onNewer)
      })
    const cancelled = !result.ok && !timedOut && !leased.signal.aborted && cancels && leased.superseded.aborted
    if (cancelled) {
      log.info('agent run stopped: a newer event of its group came (cancel_in_progress)', fields)
      return stale(leased)
    }
    const interrupted = !result.ok && !timedOut && leased.signal.aborted
    if (!interrupted) {
      const outcome = result.ok ? 'ok' : timedOut ? 'timeout' : 'failed'
      parts.events?.emit('agentRun', { route: route.name, outcome, seconds: (performance.now() - started) / 1000 })
    }
    if (result.ok && result.text.trim() === '') return fail(fields, 'agent run failed', 'the agent answered nothing (an empty answer)')
    if (result.ok) return { text: redact(result.text) }
    if (timedOut) {
      return fail(fields, 'agent run failed', `timed out after ${timeoutMs / 1000} s (agent.timeout_seconds)`)
    }
    if (leased.signal.aborted) {
      const why: unknown = leased.signal.reason
      if (GatewayError.is(why) && why.code === 'ERR_LEASE_LOST') log.warn('agent run stopped: the lease on this job was lost; it posts nothing', fields)
      else log.warn('agent run stopped: the gateway is shutting down; the job runs again at the next start', fields)
      return { kind: 'interrupted' }
    }
    return fail(fields, 'agent run failed', result.reason)
  }

  /** `confirmed`: the try's last write (the answer it just stored) confirmed the lease a moment ago. */
  async function deliver(leased: LeasedJob, route: Route, text: string, attempt: number, fields: Fields, confirmed = false): Promise<JobOutcome> {
    const { job, payload } = leased
    const target = targets.get(route.deliver)
    if (!target) return fail(fields, 'delivery failed', `no delivery target "${route.deliver}"`)
    const tried = { ...fields, target: target.name, attempt }
    if (attempt > retry.attempts) return fail(tried, 'delivery failed', `gave up after ${retry.attempts} tries`)
    let extra: Record<string, string>
    try {
      extra = Object.fromEntries(Object.entries(route.deliverExtra).map(([key, template]) => [key, renderTemplate(template, payload)]))
    } catch (err) {
      return fail(tried, 'delivery failed', `cannot render deliver_extra: ${messageOf(err)}`)
    }
    const answer = { route: route.name, event: job.event, deliveryId: job.deliveryId, text, extra, payload, covers: job.group === undefined ? undefined : job.covers }
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
        return stale(leased)
      }
      const receipt = await target.deliver(answer, {
        signal: leased.signal, log, attempt, progress, saveProgress: (parts) => leased.saveProgress(parts),
      })
      if (receipt && !receipt.posted) {
        const reason = redact(receipt.reason)
        log.info(receipt.outcome === 'superseded' ? 'answer dropped: it is stale' : 'nothing posted', { ...tried, reason })
        return { kind: receipt.outcome, reason }
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
      if (!retryable || attempt >= retry.attempts) {
        parts.events?.emit('delivery', { target: target.name, outcome: 'failed' })
        return fail(tried, 'delivery failed', reason)
      }
      parts.events?.emit('delivery', { target: target.name, outcome: 'retried' })
      const retryAfterMs = DeliveryError.is(err) ? err.retryAfterMs : undefined
      const delay = backoffDelay(retry, attempt, retryAfterMs)
      log.warn('delivery failed, retrying', { ...tried, reason, retry_in_ms: delay })
      return { kind: 'retry', at: clock() + delay, reason: redact(reason) }
    }
  }

  /** A try whose job a newer one of its group replaced: it ends `superseded`, naming the newer job. */
  function stale(leased: LeasedJob): JobOutcome {
    const why: unknown = leased.superseded.reason
    const named = typeof why === 'object' && why !== null ? (why as { by?: unknown }).by : undefined
    const by = typeof named === 'string' ? named : undefined
    return { kind: 'superseded', reason: `superseded by job ${by ?? '?'}, a newer event of its concurrency group, before its answer was posted`, by }
  }

  async function attempt(leased: LeasedJob, fields: Fields): Promise<JobOutcome> {
    const { job } = leased
    const route = routes.get(job.route)
    if (!route) return fail(fields, 'job failed', `route "${job.route}" no longer exists`)
    if (job.stage === 'deliver') return deliver(leased, route, job.answer ?? '', job.attempts, fields)

    const ran = await runAgent(leased, route, fields)
    if (!('text' in ran)) return ran
    log.info('agent run finished', { ...fields, chars: ran.text.length })
    const silent = ran.text.trim()
    if (route.silentOutputs.includes(silent)) {
      log.info('silent output: nothing delivered', fields)
      return { kind: 'skipped', reason: `the agent answered "${silent.slice(0, 40)}", one of the route's silent_outputs` }
    }
    // Stored before any delivery is tried: after a crash from here on, only the delivery runs again.
    await leased.saveAnswer(ran.text)
    return deliver(leased, route, ran.text, 1, fields, true)
  }

  return async function dispatch(leased: LeasedJob): Promise<JobOutcome> {
    const fields = jobFields(leased.job)
    const outcome = await attempt(leased, fields)
    // Each ending was logged where it was decided; this counts it.
    if (outcome.kind !== 'retry' && outcome.kind !== 'interrupted') parts.events?.emit('jobFinished', { route: leased.job.route, outcome: outcome.kind })
    return outcome
  }
}

/** The log fields that name a job. */
export function jobFields(job: JobRecord): Fields {
  return { route: job.route, delivery: job.deliveryId, event: job.event, job: job.id }
}
