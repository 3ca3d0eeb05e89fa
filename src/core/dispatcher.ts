/**
 * After a 202: render the prompt, run the agent within its bounds, deliver the answer with retries. A failed
 * run gives its idempotency claim back (so a manual redelivery runs again); a failed delivery keeps it (so the
 * agent never runs twice for one delivery and nothing is posted twice).
 */
import { DeliveryError } from './errors.js'
import { buildAgentPrompt } from './prompt.js'
import { renderTemplate } from './template.js'
import type { AgentAnswer, AgentJob, AgentRunner, DeliveryTarget, IdempotencyStore, Logger } from './types.js'

/** How deliveries are retried. */
export interface RetryPolicy {
  /** Tries in all, the first included. */
  readonly attempts: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
}

/** Five tries over about 15 s, never waiting more than a minute for a `Retry-After`. */
export const DEFAULT_RETRY: RetryPolicy = { attempts: 5, baseDelayMs: 1000, maxDelayMs: 60_000 }

/** What the dispatcher is composed of. */
export interface DispatcherParts {
  readonly runner: AgentRunner
  readonly targets: ReadonlyMap<string, DeliveryTarget>
  readonly store: IdempotencyStore
  readonly log: Logger
  readonly skillsDir: string
  readonly timeoutMs: number
  /** Aborted when the gateway's grace period ends. */
  readonly signal: AbortSignal
  readonly retry?: RetryPolicy | undefined
  /** Injectable for tests: waits `ms` unless `signal` aborts. */
  readonly sleep?: ((ms: number, signal: AbortSignal) => Promise<void>) | undefined
}

/** Builds the worker the queue calls for every accepted event. */
export function createDispatcher(parts: DispatcherParts): (job: AgentJob) => Promise<void> {
  const { runner, targets, store, log, skillsDir, timeoutMs, signal } = parts
  const retry = parts.retry ?? DEFAULT_RETRY
  const sleep = parts.sleep ?? abortableSleep

  async function deliver(target: DeliveryTarget, answer: AgentAnswer, fields: Record<string, string>): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await target.deliver(answer, { signal, log, attempt })
        log.info('delivered', { ...fields, target: target.name, attempt })
        return
      } catch (err) {
        const retryable = err instanceof DeliveryError && err.retryable && !signal.aborted
        const reason = err instanceof Error ? err.message : String(err)
        if (!retryable || attempt >= retry.attempts) {
          log.error('delivery failed', { ...fields, target: target.name, attempt, reason })
          return
        }
        const retryAfterMs = err instanceof DeliveryError ? err.retryAfterMs : undefined
        const delay = Math.min(retryAfterMs ?? retry.baseDelayMs * 2 ** (attempt - 1), retry.maxDelayMs)
        log.warn('delivery failed, retrying', { ...fields, target: target.name, attempt, reason, retry_in_ms: delay })
        await sleep(delay, signal).catch(() => {})
        if (signal.aborted) {
          // Another try now would only fail on the aborted signal; say plainly why this answer was not delivered.
          log.error('delivery failed', { ...fields, target: target.name, attempt, reason: 'the gateway closed before the next try' })
          return
        }
      }
    }
  }

  return async function dispatch(job: AgentJob): Promise<void> {
    const { event, route } = job
    const fields = { route: route.name, delivery: event.deliveryId, event: event.type }
    const target = targets.get(route.deliver)
    const { prompt, parts: promptParts } = await buildAgentPrompt(job, skillsDir, log, fields)
    log.info('agent run started', { ...fields, runner: runner.name })
    // One controller and one timer per run, both dropped when the run ends: AbortSignal.any() over the
    // gateway's long-lived signal plus AbortSignal.timeout() left a 10-minute timer and a dependant signal behind
    // for every accepted event (~20-50 us each, and heap that only a GC much later gives back).
    const run = new AbortController()
    const onShutdown = () => run.abort(signal.reason)
    if (signal.aborted) run.abort(signal.reason)
    else signal.addEventListener('abort', onShutdown, { once: true })
    const timer = setTimeout(() => run.abort(new DOMException('The agent run timed out', 'TimeoutError')), timeoutMs)
    // Through a promise even for a plain-object runner whose run() throws before returning one: its claim must
    // still be released and the failure logged.
    const result = await Promise.resolve()
      .then(() => runner.run({ prompt, parts: promptParts, route: route.name, event: event.type, deliveryId: event.deliveryId }, { signal: run.signal, log }))
      .catch((err: unknown) => ({ ok: false as const, reason: err instanceof Error ? err.message : String(err) }))
      .finally(() => {
        clearTimeout(timer)
        signal.removeEventListener('abort', onShutdown)
      })
    if (!result.ok) {
      if (job.claimKey !== undefined) await store.release(job.claimKey)
      log.error('agent run failed', { ...fields, runner: runner.name, reason: result.reason })
      return
    }
    log.info('agent run finished', { ...fields, chars: result.text.length })
    if (route.silentOutputs.includes(result.text.trim())) {
      log.info('silent output: nothing delivered', fields)
      return
    }
    if (!target) {
      log.error('delivery failed', { ...fields, target: route.deliver, reason: 'no such delivery target' })
      return
    }
    const extra = Object.fromEntries(
      Object.entries(route.deliverExtra).map(([key, template]) => [key, renderTemplate(template, event.payload)]),
    )
    await deliver(target, { route: route.name, event: event.type, deliveryId: event.deliveryId, text: result.text, extra }, fields)
  }
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}
