/**
 * The commit status `hookpilot/<route>` of a reviewed head: `running` from the agent's start (the target's
 * `started`), then `success` or `failed` by `fail_on` once the review is posted, `canceled` when the answer is
 * superseded (mr-review.ts), and completed when the job ends without a review (the target's `ended`).
 *
 * GitLab keeps one status per commit, name and ref while it is `pending` or `running`: posting the same name,
 * commit and ref again moves it (`running` → `success`, `failed`, `canceled`), and a post after it finished starts
 * a new one. It refuses `running` over `running` (`Cannot transition status via :run from :running`) and a
 * running status cannot become `skipped`; the target never asks either (mr-api.ts takes a repeat as done).
 */
import type { MergeRequestApi, StatusState } from './mr-api.js'


/** Where a route's status is written: its name, the merge request's source branch, and its link. */
export interface StatusPlace {
  readonly name: string
  /** The source branch: GitLab keys a running status by it, so every write of one review names the same. */
  readonly ref: string
  readonly targetUrl?: string | undefined
}

/** A status's end: its state and what it says. */
export interface StatusEnd {
  readonly state: StatusState
  readonly description: string
}

/** What {@link settleRunning} found of the head's status. */
export type StatusFound = 'running' | 'finished' | 'none'

/**
 * Ends the status of `sha` that is still running (a job marked it and ended without concluding it): as the head's
 * last finished status says when it has one (the review that stands on it, or an earlier ending), else as
 * `fallback`. A finished status, or none, is left as it is. One read, and one write when one was running.
 */
export async function settleRunning(api: MergeRequestApi, sha: string, place: StatusPlace, fallback: StatusEnd): Promise<StatusFound> {
  const [newest, ...older] = await api.statuses(sha, place.name, place.ref)
  if (newest === undefined) return 'none'
  if (newest.status !== 'running' && newest.status !== 'pending') return 'finished'
  const standing = older.find((s) => FINISHED.has(s.status))
  const end = standing === undefined ? fallback : { state: standing.status as StatusState, description: standing.description ?? fallback.description }
  await api.setStatus(sha, { ...end, name: place.name, ref: place.ref, targetUrl: place.targetUrl })
  return 'running'
}

/** The finished states a status can be moved back to from `running` (not `skipped`: GitLab refuses it). */
const FINISHED = new Set<string>(['success', 'failed', 'canceled'])
