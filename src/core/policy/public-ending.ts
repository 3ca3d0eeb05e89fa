/**
 * Why a job ended without a review, in words anyone who can read the pull request may read: a check's summary, a
 * commit status's description. A job's stored reason is the operator's: a failure's may quote the agent, a path or
 * a setting, and a budget's names its amounts, so only the policy's own reasons (the repository's rules, which
 * `@bot why` shows too) and the name of a refusing budget pass; the rest is said in general words.
 */
import { POLICY_REASON } from './replies.js'

/** How the job ended, and its stored reason. */
export function publicEnding(outcome: 'skipped' | 'superseded' | 'failed', reason: string): string {
  if (outcome === 'failed') return 'the review failed; the operator can see why'
  if (outcome === 'superseded') return 'a newer event of this pull request came first'
  if (reason.startsWith(POLICY_REASON)) return reason.slice(POLICY_REASON.length)
  // dispatch/budgets.ts: `budget <kind> of <whose> has no room: <amounts> (<setting>)`; the setting may be named.
  if (reason.startsWith('budget ')) {
    const setting = /\(([^()]+)\)$/.exec(reason)?.[1]
    return setting === undefined ? 'a budget has no room' : `a budget has no room (${setting})`
  }
  return 'nothing to post'
}
