/**
 * A webhook's recent deliveries, as GitHub lists them (`GET /<hook>/deliveries`, newest first, paged by a cursor
 * in the `Link` header): every attempt, redeliveries included, each with the delivery's `guid` (the
 * `X-GitHub-Delivery` the gateway de-duplicates on) and the status GitHub recorded. `<hook>` is the hook's REST
 * path as a job keeps it (core/jobs/lifecycle/origin.ts): `app/hook` (the App's, with its JWT), `repos/OWNER/NAME/hooks/ID`
 * or `orgs/OWNER/hooks/ID` (with a token that may read the hook). The same two calls serve all three.
 */
import type { Octokit } from '@octokit/core'
import { GatewayError } from '../../core/errors.js'
import { validHook } from '../../core/jobs/lifecycle/origin.js'

/** One attempt GitHub recorded. */
export interface HookDelivery {
  /** The attempt's id: what `POST /<hook>/deliveries/{id}/attempts` redelivers. */
  readonly id: number
  /** The delivery's id, the same for every attempt of it. */
  readonly guid: string
  /** ms since the epoch. */
  readonly deliveredAt: number
  /** The HTTP status the gateway answered; 0 when GitHub could not reach it. */
  readonly statusCode: number
  readonly event: string
  readonly redelivery: boolean
}

/** How far back, and how many pages of 100, to read. */
export interface ListBounds {
  /** Attempts older than this (ms since the epoch) end the listing. */
  readonly since: number
  readonly maxPages: number
}

/** The App's own hook: what reconcile looks at by default. */
export const APP_HOOK = 'app/hook'

/** An attempt as GitHub's list answers it (the fields read). */
interface ListedAttempt {
  readonly id: number
  readonly guid: string
  readonly delivered_at: string
  readonly status_code: number
  readonly event: string
  readonly redelivery: boolean
}

/**
 * `hook` checked before it becomes part of a URL (it may come from a stored job): one of the three shapes, over
 * GitHub's name characters, or a refusal naming what is wrong.
 */
export function hookPath(hook: string): string {
  const valid = validHook(hook)
  if (valid === undefined) throw new GatewayError('ERR_CONFIG', `"${hook.slice(0, 120)}" is not a GitHub hook: expected repos/OWNER/NAME/hooks/ID, orgs/OWNER/hooks/ID or app/hook`)
  return valid
}

/** Asks GitHub to send attempt `id` of `hook` again (same guid, signed as before). */
export async function redeliver(octokit: Octokit, hook: string, id: number): Promise<void> {
  await octokit.request(`POST /${hookPath(hook)}/deliveries/{delivery_id}/attempts`, { delivery_id: id })
}

/** The attempts of `hook` since `bounds.since`, newest first, reading at most `bounds.maxPages` pages. */
export async function listDeliveries(octokit: Octokit, hook: string, bounds: ListBounds): Promise<{ deliveries: HookDelivery[]; truncated: boolean }> {
  const deliveries: HookDelivery[] = []
  const route = `GET /${hookPath(hook)}/deliveries`
  let cursor: string | undefined
  for (let page = 1; page <= bounds.maxPages; page++) {
    const response = await octokit.request(route, { per_page: 100, ...(cursor === undefined ? {} : { cursor }) })
    for (const item of response.data as ListedAttempt[]) {
      const deliveredAt = Date.parse(item.delivered_at)
      if (deliveredAt < bounds.since) return { deliveries, truncated: false }
      deliveries.push({ id: Number(item.id), guid: item.guid, deliveredAt, statusCode: item.status_code, event: item.event, redelivery: item.redelivery })
    }
    cursor = nextCursor(response.headers.link)
    if (cursor === undefined) return { deliveries, truncated: false }
  }
  return { deliveries, truncated: true }
}

/** The `cursor` of the `rel="next"` link, or undefined on the last page. */
function nextCursor(link: string | undefined): string | undefined {
  const next = link?.split(',').find((part) => /rel="next"/.test(part))
  const url = next === undefined ? undefined : /<([^>]+)>/.exec(next)?.[1]
  return url === undefined ? undefined : (new URL(url).searchParams.get('cursor') ?? undefined)
}
