/**
 * `check_head`: before posting, ask GitHub for the pull request's head and drop an answer about an older one.
 * It covers what the gateway cannot know: a push whose webhook never arrived, or arrived at another gateway.
 */
import { DeliveryError } from '../../../core/errors.js'
import type { DeliveryReceipt, JsonObject } from '../../../core/types.js'
import { ghOutput, type GhRunner } from './gh.js'

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
 * (post). `gh pr view <n> --repo <repo> --json headRefOid`.
 */
export async function staleHead(gh: GhRunner, head: string): Promise<DeliveryReceipt | undefined> {
  const args = ['pr', 'view', gh.prNumber, '--repo', gh.repo, '--json', 'headRefOid']
  const stdout = await ghOutput(gh, args, { doing: 'read the pull request head', repeatable: true })
  const current = headRefOid(stdout)
  if (current === undefined) throw new DeliveryError('github_comment', 'gh pr view --json headRefOid printed no head SHA, so the head could not be checked')
  if (current.toLowerCase() === head.toLowerCase()) return undefined
  return {
    posted: false,
    outcome: 'superseded',
    reason: `the pull request's head moved to ${current.slice(0, 7)} after this event (${head.slice(0, 7)})`,
  }
}

function headRefOid(stdout: string): string | undefined {
  try {
    const { headRefOid } = JSON.parse(stdout) as { headRefOid?: unknown }
    return typeof headRefOid === 'string' && SHA.test(headRefOid) ? headRefOid : undefined
  } catch {
    return undefined
  }
}
