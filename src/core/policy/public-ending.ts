/**
 * Why a job ended without a review, in words anyone who can read the pull request may read: a check's summary, a
 * commit status's description. A job's stored reason is the operator's: a failure's may quote the agent, a path or
 * a setting, and a budget's names its amounts, so only the policy's own reasons (the repository's rules, which
 * `@bot why` shows too) and the name of a refusing budget pass; the rest is said in general words.
 */
import { POLICY_REASON } from './replies.js'

/** Why a job ended without a review, said in public: a few words for a title, and the whole of it. */
export interface PublicEnding {
  /** A few words: `nothing to post`, `skipped by the repository's policy`, `a budget has no room`, ... */
  readonly short: string
  /** The sentence: the policy's rule, the refusing budget's setting, or the short words again. */
  readonly said: string
}

/** How the job ended, and its stored reason, in public words. */
export function publicEnding(outcome: 'skipped' | 'superseded' | 'failed', reason: string): PublicEnding {
  if (outcome === 'failed') return { short: 'the review failed', said: 'the review failed; the operator can see why' }
  if (outcome === 'superseded') return { short: 'a newer event came', said: 'a newer event of this pull request came first' }
  if (reason.startsWith(POLICY_REASON)) return { short: "skipped by the repository's policy", said: reason.slice(POLICY_REASON.length) }
  // dispatch/budgets.ts: `budget <kind> of <whose> has no room: <amounts> (<setting>)`; the setting may be named.
  if (reason.startsWith('budget ')) {
    const setting = /\(([^()]+)\)$/.exec(reason)?.[1]
    return { short: 'a budget has no room', said: setting === undefined ? 'a budget has no room' : `a budget has no room (${setting})` }
  }
  return { short: 'nothing to post', said: 'nothing to post' }
}
