/**
 * `check_head`: before posting, ask GitHub for the pull request's head and drop an answer about an older one.
 * It covers what the gateway cannot know: a push whose webhook never arrived, or arrived at another gateway.
 */
import type { DeliveryReceipt, JsonObject } from '../../../core/types.js'
import type { CommentApi } from './comment-api.js'

const SHA = /^[0-9a-f]{7,64}$/i

/** The head SHA in the event's payload (`pull_request.head.sha`), or undefined when it holds none. */
export function payloadHead(payload: JsonObject | undefined): string | undefined {
  const pullRequest = payload?.['pull_request']
  if (typeof pullRequest !== 'object' || pullRequest === null || Array.isArray(pullRequest)) return undefined
  const head = pullRequest['head']
  if (typeof head !== 'object' || head === null || Array.isArray(head)) return undefined
  const sha = head['sha']
  return typeof sha === 'string' && SHA.test(sha) ? sha : undefined
}

/**
 * The receipt of a dropped answer when the pull request's head is no longer `head`; undefined when it still is
 * (post).
 */
export async function staleHead(api: CommentApi, head: string): Promise<DeliveryReceipt | undefined> {
  const current = await api.head()
  if (current.toLowerCase() === head.toLowerCase()) return undefined
  return {
    posted: false,
    outcome: 'superseded',
    reason: `the pull request's head moved to ${current.slice(0, 7)} after this event (${head.slice(0, 7)})`,
  }
}
