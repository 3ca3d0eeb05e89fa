/**
 * The fake GitHub's issue comments (a pull request's conversation): list them (paged, with GitHub's `Link`
 * header), create one, edit one. Editing someone else's comment is refused with 403, as GitHub refuses it.
 */
import { jsonBody, NOT_FOUND, type FakeAnswer, type FakeRequest, type FakeRoute } from './router.js'
import type { FakeComment } from './state.js'

const PER_PAGE_DEFAULT = 30
const PER_PAGE_MAX = 100

/** A comment in the shape GitHub's REST API gives it. */
export function restComment(comment: FakeComment): Record<string, unknown> {
  return {
    id: comment.id,
    node_id: `IC_${comment.id}`,
    html_url: `https://github.com/${comment.repo}/pull/${comment.number}#issuecomment-${comment.id}`,
    user: { login: comment.login, type: comment.login.endsWith('[bot]') ? 'Bot' : 'User' },
    body: comment.body,
  }
}

/** List, create and edit. */
export const issueCommentRoutes: readonly FakeRoute[] = [
  {
    method: 'GET',
    path: /^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/comments$/,
    answer(req, [, repo = '', number = ''], { state }) {
      if (state.pull(repo, Number(number)) === undefined) return NOT_FOUND
      const perPage = Math.min(Number(req.query.get('per_page') ?? PER_PAGE_DEFAULT), PER_PAGE_MAX)
      const page = Number(req.query.get('page') ?? 1)
      const all = state.comments(repo, Number(number))
      const last = Math.max(1, Math.ceil(all.length / perPage))
      const pageUrl = (n: number) => `${req.origin}${req.path}?per_page=${perPage}&page=${n}`
      const link = page < last ? { link: `<${pageUrl(page + 1)}>; rel="next", <${pageUrl(last)}>; rel="last"` } : {}
      return [200, all.slice((page - 1) * perPage, page * perPage).map(restComment), link]
    },
  },
  {
    method: 'POST',
    path: /^\/repos\/([^/]+\/[^/]+)\/issues\/(\d+)\/comments$/,
    answer(req, [, repo = '', number = ''], { state, account, note }) {
      if (state.pull(repo, Number(number)) === undefined) return NOT_FOUND
      const body = commentBody(req)
      if (typeof body !== 'string') return body
      const comment = state.createComment(repo, Number(number), body, account?.login ?? '', true)
      note(`created comment ${comment.id} on ${repo}#${number}: ${issueCommentGist(body)}`)
      return [201, restComment(comment)]
    },
  },
  {
    method: 'PATCH',
    path: /^\/repos\/([^/]+\/[^/]+)\/issues\/comments\/(\d+)$/,
    answer(req, [, repo = '', id = ''], { state, account, note }) {
      const comment = state.comment(repo, Number(id))
      if (comment === undefined) return NOT_FOUND
      if (comment.login !== account?.login) return [403, { message: 'Resource not accessible by personal access token' }]
      const body = commentBody(req)
      if (typeof body !== 'string') return body
      state.editComment(comment, body)
      note(`edited comment ${comment.id} on ${repo}#${comment.number} (edit ${comment.edits}): ${issueCommentGist(body)}`)
      return [200, restComment(comment)]
    },
  },
]

/** The `body` of a write (gh sends JSON with `--input`), or GitHub's 422 for a write without one. */
function commentBody(req: FakeRequest): string | FakeAnswer {
  const parsed = jsonBody(req)
  if (!parsed.ok) return parsed.answer
  const { body } = parsed.value
  return typeof body === 'string' ? body : [422, { message: 'Invalid request.\n\n"body" wasn\'t supplied.' }]
}

/**
 * A comment in one line, for the log: its first and last lines that say something (a hidden marker says
 * nothing to a reader; a review's last line is often its footer, naming the head it reviewed).
 */
export function issueCommentGist(body: string): string {
  const lines = body.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('<!--') && !/^-{3,}$/.test(l))
  const cut = (l: string) => (l.length > 72 ? `${l.slice(0, 71)}…` : l)
  const first = lines[0] ?? ''
  const last = lines.at(-1) ?? ''
  return JSON.stringify(lines.length > 1 ? `${cut(first)} … ${cut(last)}` : cut(first))
}
