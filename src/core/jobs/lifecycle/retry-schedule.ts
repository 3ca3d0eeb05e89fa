/**
 * When a job's next try runs after a passing failure: one schedule for deliveries (`delivery.retry`) and one for
 * agent runs (`agent.retry`), each a number of tries and an exponential backoff with jitter, long enough by
 * default to ride out the incidents users actually see (a code host or a model provider down for minutes to
 * hours), as the webhook services people trust do. A retry is a queued job with a `notBefore` in the store, so
 * a schedule survives restarts: the dispatcher only decides the time. The doubling is the one backoff helper's.
 */
import { backoffDelay, type Backoff } from '../../../util/backoff.js'

/** How a kind of failure is retried: tries in all, and the growing wait between them. */
export interface RetrySchedule {
  /** Tries in all, the first included. */
  readonly attempts: number
  /** The wait before the second try; each later wait doubles, up to {@link RetrySchedule.maxDelayMs}. */
  readonly firstDelayMs: number
  /** The longest wait between two tries, a `Retry-After` included. */
  readonly maxDelayMs: number
}

/**
 * Deliveries: 8 tries over about 6 hours (waits of about 3, 6, 12, 24, 48, 96 and 180 minutes), so a code host or
 * chat down for an afternoon's incident still gets the review, and a ten-minute one costs three tries.
 */
export const DEFAULT_DELIVERY_RETRY: RetrySchedule = { attempts: 8, firstDelayMs: 180_000, maxDelayMs: 3 * 3_600_000 }

/**
 * Agent runs: 5 tries over about 30 minutes (waits of about 2, 4, 8 and 15 minutes), enough for a model
 * provider's short incident without running up hours of agent time on a job that keeps failing.
 */
export const DEFAULT_AGENT_RETRY: RetrySchedule = { attempts: 5, firstDelayMs: 120_000, maxDelayMs: 900_000 }

/** How far the jitter moves a wait either way: ±20 %, so jobs that failed together do not all come back together. */
export const JITTER = 0.2

/** The shortest wait a `Retry-After` can ask for: "now" (0) must not make a retry loop without a pause. */
export const MIN_REQUESTED_DELAY_MS = 1000

/**
 * The wait before try `attempt + 1`, after try `attempt` (1-based) failed. When the other side said when to
 * come back (`requestedMs`, its `Retry-After`), then: a Slack 429 "in 1 s" waits 1 s, not the schedule's
 * minutes; at least {@link MIN_REQUESTED_DELAY_MS}, never past `maxDelayMs` (a server cannot park a job for a
 * day), and the try still counts against `attempts`. A failure that says nothing waits
 * `firstDelayMs × 2^(attempt − 1)`, moved by up to ±{@link JITTER}, never past `maxDelayMs`. `random` is
 * replaceable in tests.
 *
 * @example
 * retryDelay(DEFAULT_DELIVERY_RETRY, 1, undefined, () => 0.5) // 180_000
 * retryDelay(DEFAULT_DELIVERY_RETRY, 1, 1_000) // 1_000: as the platform asked
 */
export function retryDelay(schedule: RetrySchedule, attempt: number, requestedMs?: number, random: () => number = Math.random): number {
  if (requestedMs !== undefined) return Math.round(Math.min(schedule.maxDelayMs, Math.max(requestedMs, MIN_REQUESTED_DELAY_MS)))
  const nominal = backoffDelay(backoffOf(schedule), attempt)
  const jittered = nominal * (1 - JITTER + 2 * JITTER * random())
  return Math.round(Math.min(schedule.maxDelayMs, jittered))
}

/** Whether try `attempt` (1-based) was the schedule's last: a failure now ends the job. */
export function lastTry(schedule: RetrySchedule, attempt: number): boolean {
  return attempt >= schedule.attempts
}

/** The nominal time from the first try to the last, without jitter or `Retry-After`, for messages. */
export function scheduleSpanMs(schedule: RetrySchedule): number {
  let total = 0
  for (let attempt = 1; attempt < schedule.attempts; attempt++) total += backoffDelay(backoffOf(schedule), attempt)
  return total
}

/** A schedule's waits as the one backoff helper takes them. */
function backoffOf(schedule: RetrySchedule): Backoff {
  return { baseDelayMs: schedule.firstDelayMs, maxDelayMs: schedule.maxDelayMs }
}

/** A length of time as a person reads it: `45 s`, `12 min`, `6.1 h`. */
export function spoken(ms: number): string {
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`
  if (ms < 2 * 3_600_000) return `${Math.round(ms / 60_000)} min`
  return `${(ms / 3_600_000).toFixed(1)} h`
}

/** A schedule as the configuration writes it (`agent.retry`, `delivery.retry`). */
export interface RetryConfig {
  readonly attempts: number
  readonly first_delay_seconds: number
  readonly max_delay_seconds: number
}

/** The schedule a validated `agent.retry` or `delivery.retry` stands for. */
export function scheduleOf(config: RetryConfig): RetrySchedule {
  return { attempts: config.attempts, firstDelayMs: config.first_delay_seconds * 1000, maxDelayMs: config.max_delay_seconds * 1000 }
}
