/**
 * {@link ReviewApi} through `gh api`: REST calls with argument arrays (never a shell) and the review as JSON on
 * stdin (`--input -`). gh reviews as whoever it is logged in as.
 */
import { DeliveryError } from '../../../core/errors.js'
import type { ChangedFile } from '../../../core/review/diff-lines.js'
import { ghOutput, runGh, type GhRunner } from './gh.js'
import { errorStrings, RESOLVE_THREAD_MUTATION, REVIEW_PER_PAGE, REVIEW_THREADS_QUERY, threadPageOf, type CompareStatus, type ReviewApi, type ReviewRow } from './review-api.js'

/** A page of 100 files with their patches: GitHub shows a file's patch up to about a megabyte, so this is generous. */
const FILES_PAGE_BYTES = 64 * 1024 * 1024
/** A page of 100 threads with up to 20 comments each, bodies whole. */
const THREADS_PAGE_BYTES = 32 * 1024 * 1024

/** The reviews and changed files of `gh.repo`#`gh.prNumber`, through gh. */
export function ghReviews(gh: GhRunner): ReviewApi {
  const pull = `repos/${gh.repo}/pulls/${gh.prNumber}`
  const [owner = '', name = ''] = gh.repo.split('/')
  return {
    async filesPage(page) {
      // One file per line: only the fields the anchoring reads.
      const filter = '.[] | {filename, status, patch, previous_filename} | @json'
      const stdout = await ghOutput(gh, ['api', `${pull}/files?per_page=${REVIEW_PER_PAGE}&page=${page}`, '--jq', filter], { doing: 'list the changed files', repeatable: true, maxOutputBytes: FILES_PAGE_BYTES })
      return lines(stdout).map((line) => parsed<ChangedFile>(line, 'the changed files', (v) => typeof (v as ChangedFile).filename === 'string', (v) => {
        const { filename, status, patch, previous_filename: previous } = v as { filename: string, status: ChangedFile['status'], patch?: string | null, previous_filename?: string | null }
        return { filename, status, ...(typeof patch === 'string' ? { patch } : {}), ...(typeof previous === 'string' ? { previous_filename: previous } : {}) }
      }))
    },
    async reviewsPage(page, marker) {
      const filter = `.[] | [.user.login, ((.body // "") | startswith(${JSON.stringify(marker)})), .html_url] | @json`
      const stdout = await ghOutput(gh, ['api', `${pull}/reviews?per_page=${REVIEW_PER_PAGE}&page=${page}`, '--jq', filter], { doing: 'list the reviews', repeatable: true })
      return lines(stdout).map((line) => parsed<ReviewRow>(line, 'the reviews', Array.isArray, (v) => {
        const [login, marked, url] = v as unknown[]
        return { login: typeof login === 'string' ? login : '', marked: marked === true, url: typeof url === 'string' ? url : '' }
      }))
    },
    async createReview(review) {
      // Not repeatable: a review that timed out may have been created; the next try finds it by its marker.
      const outcome = await runGh(gh, ['api', '--method', 'POST', `${pull}/reviews`, '--input', '-'], { doing: 'create the review', repeatable: false }, JSON.stringify(review))
      if (outcome.ok) {
        const url = (JSON.parse(outcome.stdout) as { html_url?: unknown }).html_url
        return { ok: true, url: typeof url === 'string' ? url : '' }
      }
      if (!outcome.unprocessable) throw outcome.error
      let body: unknown
      try {
        body = JSON.parse(outcome.stdout)
      } catch {
        body = undefined
      }
      return { ok: false, errors: errorStrings(body) }
    },
    async pullCommits() {
      const stdout = await ghOutput(gh, ['api', pull, '--jq', '[.head.sha, (.base.sha // "")] | @json'], { doing: 'read the pull request head and base', repeatable: true })
      const [head, base] = parsed<unknown[]>(stdout.trim(), 'the pull request', Array.isArray, (v) => v as unknown[])
      if (typeof head !== 'string') throw new DeliveryError('github_comment', 'gh listed the pull request without a head SHA', { retryable: false })
      return { head, base: typeof base === 'string' ? base : '' }
    },
    async compare(base, head) {
      const outcome = await runGh(gh, ['api', `repos/${gh.repo}/compare/${base}...${head}?per_page=1`, '--jq', '.status'], { doing: `compare ${base.slice(0, 7)}...${head.slice(0, 7)}`, repeatable: true })
      // A commit GitHub no longer knows (a force-push made it unreachable): the history was rewritten.
      if (!outcome.ok) {
        if (outcome.notFound) return 'missing'
        throw outcome.error
      }
      const status = outcome.stdout.trim()
      if (!COMPARE_STATUSES.has(status)) throw new DeliveryError('github_comment', `gh compared the commits with a status this version does not know: ${JSON.stringify(status.slice(0, 40))}`, { retryable: false })
      return status as CompareStatus
    },
    async threadsPage(after) {
      const args = ['api', 'graphql', '-f', `query=${REVIEW_THREADS_QUERY}`, '-f', `owner=${owner}`, '-f', `name=${name}`, '-F', `number=${gh.prNumber}`, ...(after === undefined ? [] : ['-f', `after=${after}`])]
      const stdout = await ghOutput(gh, args, { doing: 'list the review threads', repeatable: true, maxOutputBytes: THREADS_PAGE_BYTES })
      const page = threadPageOf(parsed<{ data?: unknown }>(stdout.trim(), 'the review threads', (v) => typeof v === 'object' && v !== null, (v) => v as { data?: unknown }).data)
      if (page === undefined) throw new DeliveryError('github_comment', `gh listed no review threads for ${gh.repo}#${gh.prNumber}`, { retryable: false })
      return page
    },
    async resolveThread(id) {
      // gh exits non-zero on a GraphQL answer with errors, saying them.
      await ghOutput(gh, ['api', 'graphql', '-f', `query=${RESOLVE_THREAD_MUTATION}`, '-f', `id=${id}`], { doing: `resolve review thread ${id}`, repeatable: true })
    },
  }
}

const COMPARE_STATUSES = new Set(['ahead', 'behind', 'diverged', 'identical'])

function lines(stdout: string): string[] {
  return stdout.split('\n').filter((line) => line.trim() !== '')
}

function parsed<T>(line: string, what: string, valid: (value: unknown) => boolean, shape: (value: unknown) => T): T {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    throw new DeliveryError('github_comment', `gh api (to list ${what}) printed a line that is not JSON: is platforms.github.gh_path the real gh CLI?`)
  }
  if (!valid(value)) throw new DeliveryError('github_comment', `gh listed ${what} in a shape this version does not know`, { retryable: false })
  return shape(value)
}
