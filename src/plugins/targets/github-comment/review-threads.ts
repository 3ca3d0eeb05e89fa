/**
 * Review mode's own review threads: each inline comment the gateway posts starts with a hidden marker naming the
 * route and its finding's key (core/review/review-memory.ts), so a later review of the pull request knows which
 * threads are this route's and what each is about. With that:
 *
 * - a finding raised again on the line its open thread is on (the line unchanged since) is not posted twice;
 * - a thread whose finding is not raised again is resolved (GraphQL `resolveReviewThread`), unless a person
 *   replied in it: a discussion is the people's to close.
 *
 * Threads are read over GraphQL, where a GitHub App is `my-app`, not REST's `my-app[bot]`: logins are compared
 * with the suffix stripped on both sides (shared spec §5).
 */
import type { Finding } from '../../../core/review/document.js'
import { findingKey } from '../../../core/review/review-memory.js'
import type { ReviewApi } from './review-api.js'
import { stickyMarker } from '../../shared/hidden-markers.js'

/** Pages of 100 threads read at most: 2,000 threads. */
export const MAX_THREAD_PAGES = 20

/** One of this route's open threads. */
export interface OwnThread {
  readonly id: string
  /** Its finding's key. */
  readonly key: string
  readonly path: string
  /** Its line on the head now; null when outdated. */
  readonly line: number | null
  readonly side: 'LEFT' | 'RIGHT'
  /** Whether anyone but the gateway wrote in it (or more comments than were read). */
  readonly replied: boolean
}

/** The hidden first line of an inline comment of `route` about the finding with `key`. */
export function findingMarker(route: string, key: string): string {
  return stickyMarker(route).replace('hookpilot:review ', 'hookpilot:finding ').replace(' -->', ` key=${key} -->`)
}

/** A login as both APIs can be compared on: an App's `[bot]` suffix (REST's, not GraphQL's) dropped, case ignored. */
function account(login: string): string {
  return login.replace(/\[bot\]$/i, '').toLowerCase()
}

/** The open threads `login` started for `route`'s findings, reading at most {@link MAX_THREAD_PAGES} pages. */
export async function ownOpenThreads(api: ReviewApi, route: string, login: string): Promise<OwnThread[]> {
  const marker = new RegExp(`^${escape(findingMarker(route, 'KEY')).replace('KEY', '([0-9a-f]{16})')}$`)
  const me = account(login)
  const own: OwnThread[] = []
  let after: string | undefined
  for (let page = 0; page < MAX_THREAD_PAGES; page++) {
    const { threads, next } = await api.threadsPage(after)
    for (const thread of threads) {
      const key = marker.exec(thread.firstLine)?.[1]
      if (thread.resolved || key === undefined || account(thread.authors[0] ?? '') !== me) continue
      const replied = thread.more || thread.authors.slice(1).some((author) => account(author) !== me)
      own.push({ id: thread.id, key, path: thread.path, line: thread.outdated ? null : thread.line, side: thread.side, replied })
    }
    if (next === undefined) break
    after = next
  }
  return own
}

/** The open thread that already holds `finding` on its line (same key, same place, not outdated), if any. */
export function openThreadOf(finding: Finding, threads: readonly OwnThread[]): OwnThread | undefined {
  const key = findingKey(finding)
  return threads.find((t) => t.key === key && t.path === finding.path && t.line === finding.line && t.side === finding.side)
}

/** What resolving found: the threads resolved, and those left open because a person replied. */
export interface Resolution {
  readonly resolved: readonly OwnThread[]
  readonly answered: readonly OwnThread[]
}

/** Resolves each of `threads` whose finding's key is not in `raised`, unless a person replied in it. */
export async function resolveOldThreads(api: ReviewApi, threads: readonly OwnThread[], raised: ReadonlySet<string>): Promise<Resolution> {
  const resolved: OwnThread[] = []
  const answered: OwnThread[] = []
  for (const thread of threads) {
    if (raised.has(thread.key)) continue
    if (thread.replied) {
      answered.push(thread)
      continue
    }
    await api.resolveThread(thread.id)
    resolved.push(thread)
  }
  return { resolved, answered }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
