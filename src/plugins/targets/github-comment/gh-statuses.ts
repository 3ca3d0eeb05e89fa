/**
 * {@link CheckApi} through `gh api` as a commit status (`POST /repos/O/R/statuses/SHA`): a person's token cannot
 * write check runs (GitHub answers 403, "You must authenticate via a GitHub App."), any token with push access can
 * write a status. `pending` while the review runs (from the agent's start); then `success`, `failure`, or `error`
 * where a check run would be `skipped`, `cancelled` or `neutral`. Statuses are never edited, only added: the
 * newest of a context is the one GitHub shows, so completing the check is one more status. A status has no
 * annotations: the review carries the findings.
 */
import { DeliveryError } from '../../../core/errors.js'
import { ghOutput, type GhRunner } from './gh.js'
import type { CheckApi, CheckConclusion } from './review-check.js'

/** GitHub refuses a longer description (422). */
export const STATUS_DESCRIPTION_LIMIT = 140
const HEAD = /^[0-9a-f]{40,64}$/i
const STATES: Readonly<Record<CheckConclusion, 'success' | 'failure' | 'error'>> = { success: 'success', failure: 'failure', neutral: 'error', cancelled: 'error', skipped: 'error' }
/** Statuses of a head read to find the last one of a context: GitHub's page (newest first). */
const STATUSES_PAGE = 100

/** The commit statuses of `gh.repo`'s heads, through gh. */
export function ghStatuses(gh: GhRunner): CheckApi {
  async function post(head: string, body: Record<string, string>): Promise<void> {
    await ghOutput(gh, ['api', '--method', 'POST', `repos/${gh.repo}/statuses/${sha(head)}`, '--input', '-'], { doing: 'write the commit status', repeatable: true }, JSON.stringify(body))
  }
  const linked = (link: string | undefined) => (link === undefined ? {} : { target_url: link })
  return {
    async startCheck(name, head, { link }) {
      // A repeat (a later try) adds a status of the same state: harmless, the newest wins.
      await post(head, { state: 'pending', context: name, description: 'hookpilot is reviewing this head', ...linked(link) })
    },
    async finishCheck(name, head, result, { link }) {
      await post(head, { state: STATES[result.conclusion], context: name, description: short(result.title), ...linked(link) })
    },
    async settleRunning(name, head, fallback, { link }) {
      const filter = `[.[] | select(.context == ${JSON.stringify(name)}) | {state, description, target_url}] | @json`
      const stdout = await ghOutput(gh, ['api', `repos/${gh.repo}/commits/${sha(head)}/statuses?per_page=${STATUSES_PAGE}`, '--jq', filter], { doing: 'read the commit statuses', repeatable: true })
      const statuses = JSON.parse(stdout.trim() || '[]') as { state: string, description: string | null, target_url: string | null }[]
      if (statuses[0]?.state !== 'pending') return
      // The newest status before the pending one is what the head's standing review said.
      const standing = statuses.find((s) => s.state !== 'pending')
      await post(head, standing === undefined
        ? { state: STATES[fallback.conclusion], context: name, description: short(fallback.title), ...linked(link) }
        : { state: standing.state, context: name, description: standing.description ?? '', ...linked(standing.target_url ?? link) })
    },
  }
}

/** The SHA that goes into a path: only a full hex SHA (GitHub's own answer) is put there. */
function sha(head: string): string {
  if (!HEAD.test(head)) throw new DeliveryError('github_comment', `the head ${JSON.stringify(head.slice(0, 70))} is not a commit SHA; no status was written`, { retryable: false })
  return head
}

function short(text: string): string {
  return text.length > STATUS_DESCRIPTION_LIMIT ? `${text.slice(0, STATUS_DESCRIPTION_LIMIT - 1)}…` : text
}
