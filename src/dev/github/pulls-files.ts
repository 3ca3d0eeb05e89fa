/**
 * The fake GitHub's `GET /repos/O/R/pulls/N/files`: the changed files a test set for the pull request's current
 * head (`FakeGithub.setFiles`), in GitHub's DiffEntry shape and patch format, paged like GitHub (30 by default,
 * at most 100, a `Link` header to the next page, and nothing past 3,000 files, silently).
 */
import { NOT_FOUND, type FakeAnswer, type FakeRequest, type FakeRoute } from './router.js'
import type { FakeFile } from './state.js'

const PER_PAGE_DEFAULT = 30
const PER_PAGE_MAX = 100
/** GitHub lists at most this many files of a pull request, with no error and no marker. */
export const MAX_LISTED_FILES = 3000

/** One page of `all`, as GitHub pages a listing (`per_page`, `page`, a `Link` header while more follow). */
export function pageOf<T>(req: FakeRequest, all: readonly T[], shape: (item: T) => unknown): FakeAnswer {
  const asked = Number(req.query.get('per_page') ?? PER_PAGE_DEFAULT)
  const perPage = Number.isInteger(asked) && asked > 0 ? Math.min(asked, PER_PAGE_MAX) : PER_PAGE_DEFAULT
  const page = Math.max(1, Number(req.query.get('page') ?? 1) || 1)
  const last = Math.max(1, Math.ceil(all.length / perPage))
  const pageUrl = (n: number) => `${req.origin}${req.path}?per_page=${perPage}&page=${n}`
  const link = page < last ? { link: `<${pageUrl(page + 1)}>; rel="next", <${pageUrl(last)}>; rel="last"` } : {}
  return [200, all.slice((page - 1) * perPage, page * perPage).map(shape), link]
}

/** A file in GitHub's DiffEntry shape at `head`: counts from its patch (0 for a file without one, as for a binary). */
export function restFile(repo: string, head: string, file: FakeFile): Record<string, unknown> {
  const lines = (file.patch ?? '').split('\n')
  const additions = lines.filter((l) => l.startsWith('+')).length
  const deletions = lines.filter((l) => l.startsWith('-')).length
  return {
    sha: '0'.repeat(40),
    filename: file.filename,
    status: file.status,
    additions,
    deletions,
    changes: additions + deletions,
    blob_url: `https://github.com/${repo}/blob/${head}/${file.filename}`,
    raw_url: `https://github.com/${repo}/raw/${head}/${file.filename}`,
    contents_url: `https://api.github.com/repos/${repo}/contents/${file.filename}?ref=${head}`,
    ...(file.patch === undefined ? {} : { patch: file.patch }),
    ...(file.previous_filename === undefined ? {} : { previous_filename: file.previous_filename }),
  }
}

/** `GET /repos/O/R/pulls/N/files`. */
export const pullFileRoutes: readonly FakeRoute[] = [
  {
    method: 'GET',
    path: /^\/repos\/([^/]+\/[^/]+)\/pulls\/(\d+)\/files$/,
    answer(req, [, repo = '', number = ''], { state }) {
      const pull = state.pull(repo, Number(number))
      if (pull === undefined) return NOT_FOUND
      const files = (state.files(repo, pull.number, pull.head) ?? []).slice(0, MAX_LISTED_FILES)
      return pageOf(req, files, (file) => restFile(repo, pull.head, file))
    },
  },
]
