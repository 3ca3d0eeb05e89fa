/**
 * `check_head`: before posting, ask GitHub for the pull request's head and drop an answer about an older one.
 * It covers what the gateway cannot know: a push whose webhook never arrived, or arrived at another gateway.
 * The dropped answer asks for a follow-up job that reviews the head GitHub reports, so that head is never left
 * without a review when its own event is lost.
 */
import type { AgentAnswer, DeliveryReceipt, FollowUp, JsonObject } from '../../../core/types.js'
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
 * (post). With `followUp` (sticky mode, whose one comment a second answer for the head only edits) it asks for the
 * follow-up job that reviews the head it moved to; new mode asks for none, since the new head's own event, when it
 * comes on a route without a concurrency group, would post a second comment beside the follow-up's.
 */
export async function staleHead(api: CommentApi, head: string, answer: AgentAnswer, followUp: boolean): Promise<DeliveryReceipt | undefined> {
  const current = (await api.head()).toLowerCase()
  if (current === head.toLowerCase()) return undefined
  const moved = `the pull request's head moved to ${current.slice(0, 7)} after this event (${head.slice(0, 7)})`
  return followUp
    ? { posted: false, outcome: 'superseded', reason: `${moved}; ${current.slice(0, 7)} is reviewed next`, followUp: headFollowUp(answer, current) }
    : { posted: false, outcome: 'superseded', reason: moved }
}

/**
 * The job that reviews `head` when an answer was for an older one: named for the pull request and that head, so
 * every try and instance asking for it queues it once (the dispatcher skips it when a newer event of the group
 * was accepted meanwhile).
 */
export function headFollowUp(answer: AgentAnswer, head: string): FollowUp {
  const repoPr = `${answer.extra['repo'] ?? ''}#${answer.extra['pr_number'] ?? ''}`
  return { key: `${repoPr}@${head}`, payload: withHead(answer.payload ?? {}, head) }
}

/** `payload` naming `head` as its pull request's head (`pull_request.head.sha`): a follow-up job's event. */
function withHead(payload: JsonObject, head: string): JsonObject {
  const pullRequest = payload['pull_request']
  const pr = typeof pullRequest === 'object' && pullRequest !== null && !Array.isArray(pullRequest) ? pullRequest : {}
  const prHead = pr['head']
  const headObject = typeof prHead === 'object' && prHead !== null && !Array.isArray(prHead) ? prHead : {}
  // A synchronize event's `after` is the head it pushed: a prompt reading it sees the new head too.
  return { ...payload, ...(typeof payload['after'] === 'string' ? { after: head } : {}), pull_request: { ...pr, head: { ...headObject, sha: head } } }
}
