/**
 * Sticky mode: one comment per route and pull request, found again by its marker and edited in place, through
 * either {@link CommentApi} (gh, or the REST API as a GitHub App).
 *
 * Find, then edit: a delivery that is tried again (a retry, a redelivery, a job recovered after a crash between
 * the post and its record) finds the comment the earlier try created and edits it, so it never makes a second.
 * Two deliveries of one route and pull request at the same moment could both find none and both create; the
 * route's concurrency group (one job per pull request at a time) is what rules that out.
 */
import { PER_PAGE, type CommentApi } from './comment-api.js'

/** Pages of 100 comments read before giving up the search (and creating a new comment): 2,000 comments. */
export const MAX_PAGES = 20

/** A comment found by its marker. */
export interface OwnComment {
  readonly id: string
}

/**
 * The oldest comment on the pull request that starts with `marker` and was written by `login`, reading at most
 * {@link MAX_PAGES} pages and stopping at the first page that holds one. Someone else's comment that copies the
 * marker is passed over: the gateway edits only what its own account wrote.
 */
export async function findOwnComment(api: CommentApi, marker: string, login: string): Promise<OwnComment | undefined> {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const rows = await api.listPage(page, marker)
    const mine = rows.find((row) => row.marked && row.login === login)
    if (mine !== undefined) return { id: mine.id }
    if (rows.length < PER_PAGE) return undefined
  }
  return undefined
}

/** Writes the sticky comment: edits the route's own comment when there is one (and it is still there), else creates it. */
export async function writeSticky(api: CommentApi, marker: string, login: string, body: string): Promise<string> {
  const found = await findOwnComment(api, marker, login)
  const edited = found === undefined ? undefined : await api.edit(found.id, body)
  return edited ?? (await api.create(body))
}
