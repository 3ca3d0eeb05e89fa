/**
 * The App webhook's recent deliveries, as GitHub lists them (`GET /app/hook/deliveries`, newest first, paged by
 * a cursor in the `Link` header): every attempt, redeliveries included, each with the delivery's `guid` (the
 * `X-GitHub-Delivery` the gateway de-duplicates on) and the status GitHub recorded.
 */
import type { Octokit } from '@octokit/core'

/** One attempt GitHub recorded. */
export interface HookDelivery {
  /** The attempt's id: what `POST /app/hook/deliveries/{id}/attempts` redelivers. */
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

/** The attempts since `bounds.since`, newest first, reading at most `bounds.maxPages` pages. */
export async function listDeliveries(octokit: Octokit, bounds: ListBounds): Promise<{ deliveries: HookDelivery[]; truncated: boolean }> {
  const deliveries: HookDelivery[] = []
  let cursor: string | undefined
  for (let page = 1; page <= bounds.maxPages; page++) {
    const response = await octokit.request('GET /app/hook/deliveries', { per_page: 100, ...(cursor === undefined ? {} : { cursor }) })
    for (const item of response.data) {
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
