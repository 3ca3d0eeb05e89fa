/**
 * Sticky mode: one comment per route and pull request, found again by its marker and edited in place. Every
 * step is a REST call through `gh api`, with the body as JSON on stdin.
 *
 * Find, then edit: a delivery that is tried again (a retry, a redelivery, a job recovered after a crash between
 * the post and its record) finds the comment the earlier try created and edits it, so it never makes a second.
 * Two deliveries of one route and pull request at the same moment could both find none and both create; the
 * route's concurrency group (one job per pull request at a time) is what rules that out.
 */
import { DeliveryError } from '../../../core/errors.js'
import { ghOutput, runGh, type GhRunner } from './gh.js'

/** Pages of 100 comments read before giving up the search (and creating a new comment): 2,000 comments. */
export const MAX_PAGES = 20
const PER_PAGE = 100

/** A comment found by its marker. */
export interface OwnComment {
  readonly id: string
}

/**
 * The oldest comment on the pull request that starts with `marker` and was written by `login`, reading at most
 * {@link MAX_PAGES} pages and stopping at the first page that holds one. Someone else's comment that copies the
 * marker is passed over: the gateway edits only what its own account wrote.
 */
export async function findOwnComment(gh: GhRunner, marker: string, login: string): Promise<OwnComment | undefined> {
  // Each comment comes back as one short line (id, author, does it start with the marker), not its whole body.
  const filter = `.[] | [.id, .user.login, ((.body // "") | startswith(${JSON.stringify(marker)}))] | @json`
  for (let page = 1; page <= MAX_PAGES; page++) {
    const endpoint = `repos/${gh.repo}/issues/${gh.prNumber}/comments?per_page=${PER_PAGE}&page=${page}`
    const stdout = await ghOutput(gh, ['api', endpoint, '--jq', filter], { doing: 'list the comments', repeatable: true })
    const rows = stdout.split('\n').filter((line) => line.trim() !== '').map(parseRow)
    const mine = rows.find((row) => row.marked && row.login === login)
    if (mine !== undefined) return { id: mine.id }
    if (rows.length < PER_PAGE) return undefined
  }
  return undefined
}

/**
 * Edits the comment; resolves with its URL, or undefined when it is gone (deleted since it was found: the
 * caller creates a new one). GitHub refusing the edit (403) fails the delivery, saying so.
 */
export async function editComment(gh: GhRunner, id: string, body: string): Promise<string | undefined> {
  const args = ['api', '--method', 'PATCH', `repos/${gh.repo}/issues/comments/${id}`, '--input', '-', '--jq', '.html_url']
  const outcome = await runGh(gh, args, { doing: `edit comment ${id}`, repeatable: true }, JSON.stringify({ body }))
  if (outcome.ok) return outcome.stdout.trim()
  if (outcome.notFound) return undefined
  throw outcome.error
}

/** Creates the comment; resolves with its URL. A timeout is retried: the retry finds this comment and edits it. */
export async function createComment(gh: GhRunner, body: string): Promise<string> {
  const args = ['api', '--method', 'POST', `repos/${gh.repo}/issues/${gh.prNumber}/comments`, '--input', '-', '--jq', '.html_url']
  return (await ghOutput(gh, args, { doing: 'create the comment', repeatable: true }, JSON.stringify({ body }))).trim()
}

/**
 * The login gh runs as (`gh api user`). A GitHub App's installation token cannot ask; such a setup names its
 * account in `platforms.github.login` (`my-app[bot]`).
 */
export async function ghLogin(gh: GhRunner): Promise<string> {
  const outcome = await runGh(gh, ['api', 'user', '--jq', '.login'], { doing: 'learn which account gh runs as', repeatable: true })
  if (outcome.ok && outcome.stdout.trim() !== '') return outcome.stdout.trim()
  if (!outcome.ok && (outcome.error.retryable || !/\(HTTP 403\)/.test(outcome.error.message))) throw outcome.error
  throw new DeliveryError('github_comment', 'sticky mode needs the account gh posts as, and `gh api user` could not say (a GitHub App token cannot): set platforms.github.login, e.g. "my-app[bot]"')
}

interface Row {
  readonly id: string
  readonly login: string
  readonly marked: boolean
}

function parseRow(line: string): Row {
  const row: unknown = JSON.parse(line)
  if (!Array.isArray(row) || typeof row[0] !== 'number' || !Number.isSafeInteger(row[0])) {
    throw new DeliveryError('github_comment', 'gh listed the comments in a shape this version does not know', { retryable: false })
  }
  return { id: String(row[0]), login: typeof row[1] === 'string' ? row[1] : '', marked: row[2] === true }
}
