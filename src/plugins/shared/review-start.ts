/**
 * Which head a review's start marks (a check run `in_progress`, a `pending` or `running` status), on every code
 * host: the mark is written before the agent runs and completed by the delivery or the job's ending, so it must
 * name a head that one of them concludes, or it would stay running for good.
 */

const SHA = /^[0-9a-f]{7,64}$/i

/**
 * The head to mark as being reviewed, from the prompt's values (`{review.head}`: the head as the code host
 * reported it when the job started) and the head the event names; undefined to mark nothing:
 *
 * - the event names another head (a late event): its answer is taken as about that head, and the delivery ends it
 *   `superseded` or `skipped` without reviewing `{review.head}`;
 * - the route has reviewed this head already (`{review.previous_head}`): that review stands, and its check with
 *   it (the delivery finds it and posts nothing);
 * - no head is known (a target that gives no `{review.head}`).
 */
export function headToMark(variables: Readonly<Record<string, string>> | undefined, eventHead: string | undefined): string | undefined {
  const head = variables?.['review.head']?.toLowerCase()
  if (head === undefined || !SHA.test(head)) return undefined
  if (eventHead !== undefined && eventHead.toLowerCase() !== head) return undefined
  if (variables?.['review.previous_head']?.toLowerCase() === head) return undefined
  return head
}

/**
 * The head an answer is about: the one its event names, else the one the prompt named (`{review.head}`, read when
 * the agent started) for an event that names none (a comment's `@bot review`); undefined when neither is known
 * (the delivery then takes the pull request's head as it is now).
 */
export function answeredHead(variables: Readonly<Record<string, string>> | undefined, eventHead: string | undefined): string | undefined {
  if (eventHead !== undefined) return eventHead
  const head = variables?.['review.head']
  return head !== undefined && SHA.test(head) ? head.toLowerCase() : undefined
}
