/**
 * The job record: what a stored job is, whatever backend keeps it. The lifecycle (transitions.ts) computes it,
 * backends persist it, and operators read it (jobs-view.ts). Re-exported by state-backend.ts.
 */
import type { JobState } from '../../job-state.js'
import type { JsonObject } from '../../types.js'
import type { RunUsage } from '../../usage.js'

/**
 * A route's concurrency group for one event (the route's `concurrency`, with its key rendered from the payload):
 * at most one job of a key runs at a time, and a newer job supersedes the older ones that have not started.
 */
export interface JobGroup {
  /** The rendered key, scoped to the route. */
  readonly key: string
  /** A job runs only once no newer event of its key came for this long. */
  readonly debounceMs: number
  /** ...but never waits longer than this after the first event of a burst. */
  readonly maxWaitMs: number
  /**
   * The event closed (or merged) the group's pull request: joining ends the group's queued and running jobs
   * `skipped` (reason `closed`) and the job itself at once (groups.ts, `closeGroup`). Never stored.
   */
  readonly closes?: boolean | undefined
}
/** What a job does next: run the agent, or deliver the answer it already has. */
export type JobStage = 'run' | 'deliver'

/** An accepted event, as the pipeline hands it to the backend. */
export interface NewJob {
  readonly route: string
  /** The event type. */
  readonly event: string
  readonly deliveryId: string
  /** Route and delivery id; undefined for a timestamp id, which is never de-duplicated. */
  readonly dedupKey: string | undefined
  readonly payload: JsonObject
  /** The payload as the JSON text it was parsed from: stored as it is, never serialised again. */
  readonly payloadJson: string
  readonly receivedAt: number
  /** The route's concurrency group, when it has one. */
  readonly group?: JobGroup | undefined
  /** Not before this time (the moment the route's rate limit booked for a deferred event); undefined: at once. */
  readonly runAt?: number | undefined
  /** The event's page (a pull request's, a merge request's, a market's): an https URL checked by `validLink`. */
  readonly link?: string | undefined
  /** The GitHub webhook that delivered it (`repos/OWNER/NAME/hooks/ID`, `orgs/OWNER/hooks/ID`, `app/hook`). */
  readonly hook?: string | undefined
  /** The route's `fair_by` rendered from the payload (a repository, an installation): jobs take turns by it. */
  readonly fairKey?: string | undefined
  /** The route's `start_within_seconds` after it was received: not started by then, the job ends `skipped`. */
  readonly startBy?: number | undefined
}

/** A stored job, without its payload. */
export interface JobRecord {
  /** The backend's id: what `hookpilot jobs show|retry` take. */
  readonly id: string
  readonly route: string
  readonly event: string
  readonly deliveryId: string
  readonly dedupKey: string | undefined
  readonly state: JobState
  readonly stage: JobStage
  /** The agent's answer, once stored (stage `deliver`). */
  readonly answer: string | undefined
  /** How many parts of the answer a delivery has posted (chat targets split long answers). */
  readonly progress: number
  /** Tries of the current stage; a lease counts one before the worker starts. */
  readonly attempts: number
  /**
   * How many times the agent was started for this job, in all: every lease of stage `run`, a run the gateway
   * died in included. Unlike `attempts`, storing the answer does not reset it.
   */
  readonly runs: number
  /** A queued job is not leased before this time (milliseconds since the epoch). */
  readonly notBefore: number
  /** Why the last try failed, or why the job failed. */
  readonly lastError: string | undefined
  readonly receivedAt: number
  readonly updatedAt: number
  /** When the job ended (in any final state). */
  readonly finishedAt: number | undefined
  /** The concurrency group's key, when the route has one. */
  readonly group: string | undefined
  /** When the burst of events this job is the newest of began: its wait ends by then plus `max_wait_seconds`. */
  readonly burstAt: number | undefined
  /** How many accepted events this job answers: itself and the jobs it superseded before they ran. */
  readonly covers: number
  /** The newer job that replaced this one (a running job keeps running until it notices). */
  readonly supersededBy: string | undefined
  /** Why the job ended `skipped` or `superseded`, in words. */
  readonly note: string | undefined
  /** Where the answer was posted, when the target said (a comment's URL). */
  readonly url: string | undefined
  /** The event's page, as the source read it when the job was accepted (see {@link NewJob.link}); never changes. */
  readonly link: string | undefined
  /** The GitHub webhook that delivered the event (see {@link NewJob.hook}); never changes. */
  readonly hook: string | undefined
  /** The fairness key (see {@link NewJob.fairKey}); never changes. Unset on a record stored before fair turns. */
  readonly fairKey?: string | undefined
  /**
   * The round of leases this job is in (fairness.ts): jobs are leased by turn first, so the keys take turns.
   * Decided when the job is stored; unset (0) on a record stored before fair turns.
   */
  readonly turn?: number | undefined
  /** When the job must have started by (see {@link NewJob.startBy}); never changes. */
  readonly startBy?: number | undefined
  /** What the job's agent runs used in all (tokens, cost), every run that reported it added; undefined before any did. */
  readonly usage: RunUsage | undefined
}
