/**
 * {@link CheckApi} through `gh api` as a commit status (`POST /repos/O/R/statuses/SHA`): a person's token cannot
 * write check runs (GitHub answers 403, "You must authenticate via a GitHub App."), any token with push access can
 * write a status. `pending` while the review is posted; then `success`, `failure`, or `error` where a check run
 * would be `skipped`, `cancelled` or `neutral`. A status has no annotations: the review carries the findings.
 */
import { DeliveryError } from '../../../core/errors.js'
import { ghOutput, type GhRunner } from './gh.js'
import type { CheckApi, CheckConclusion } from './review-check.js'

/** GitHub refuses a longer description (422). */
export const STATUS_DESCRIPTION_LIMIT = 140
const HEAD = /^[0-9a-f]{40,64}$/i
const STATES: Readonly<Record<CheckConclusion, 'success' | 'failure' | 'error'>> = { success: 'success', failure: 'failure', neutral: 'error', cancelled: 'error', skipped: 'error' }

/** The commit statuses of `gh.repo`'s heads, through gh. */
export function ghStatuses(gh: GhRunner): CheckApi {
  async function post(head: string, body: Record<string, string>): Promise<void> {
    // The SHA goes into the path: only a full hex SHA (GitHub's own answer) is put there.
    if (!HEAD.test(head)) throw new DeliveryError('github_comment', `the head ${JSON.stringify(head.slice(0, 70))} is not a commit SHA; no status was written`, { retryable: false })
    await ghOutput(gh, ['api', '--method', 'POST', `repos/${gh.repo}/statuses/${head}`, '--input', '-'], { doing: 'write the commit status', repeatable: true }, JSON.stringify(body))
  }
  return {
    async startCheck(name, head, link) {
      await post(head, { state: 'pending', context: name, description: 'hookpilot is posting its review of this head', ...(link === undefined ? {} : { target_url: link }) })
      // The id carries the link: a status is written again whole, and the finished one keeps pointing at the job.
      return link === undefined ? head : `${head} ${link}`
    },
    async finishCheck(id, name, head, result) {
      const link = id.split(' ')[1]
      await post(head, { state: STATES[result.conclusion], context: name, description: short(result.title), ...(link === undefined ? {} : { target_url: link }) })
    },
  }
}

function short(text: string): string {
  return text.length > STATUS_DESCRIPTION_LIMIT ? `${text.slice(0, STATUS_DESCRIPTION_LIMIT - 1)}…` : text
}
