/**
 * The fake GitHub's repository areas beyond its pull requests' heads (state in repository-state.ts): files at commits (the contents API, in
 * GitHub's base64 shape), a pull request's details (title, description, draft, author, labels, base and head
 * branches), reactions to comments, and collaborators' permissions. What the gateway reads of a repository's
 * policy file and what it answers to pull-request commands is served from here.
 */
import { createHash } from 'node:crypto'
import { jsonBody, NOT_FOUND, type FakeRoute } from './router.js'

/** The largest file the contents API returns with its content (GitHub: 1 MB; larger ones come with `encoding: none`). */
const CONTENT_LIMIT = 1024 * 1024

/** A file in the contents API's shape: base64 in lines of 60 characters, as GitHub sends it. */
export function restContent(repo: string, ref: string, path: string, text: string): Record<string, unknown> {
  const bytes = Buffer.from(text, 'utf8')
  const sha = createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex')
  const large = bytes.length > CONTENT_LIMIT
  return {
    type: 'file',
    encoding: large ? 'none' : 'base64',
    size: bytes.length,
    name: path.split('/').at(-1),
    path,
    content: large ? '' : (bytes.toString('base64').match(/.{1,60}/g) ?? []).join('\n') + '\n',
    sha,
    url: `https://api.github.com/repos/${repo}/contents/${path}?ref=${ref}`,
    html_url: `https://github.com/${repo}/blob/${ref}/${path}`,
    download_url: `https://raw.githubusercontent.com/${repo}/${ref}/${path}`,
  }
}

const REACTIONS = new Set(['+1', '-1', 'laugh', 'confused', 'heart', 'hooray', 'rocket', 'eyes'])

/** The contents API, reactions to comments and a collaborator's permission. */
export const repositoryRoutes: readonly FakeRoute[] = [
  {
    method: 'GET',
    path: /^\/repos\/([^/]+\/[^/]+)\/contents\/(.+)$/,
    answer(req, [, repo = '', path = ''], { state }) {
      const ref = req.query.get('ref') ?? 'HEAD'
      const text = state.repository.content(repo, ref, decodeURIComponent(path))
      return text === undefined ? NOT_FOUND : [200, restContent(repo, ref, decodeURIComponent(path), text)]
    },
  },
  {
    method: 'POST',
    path: /^\/repos\/([^/]+\/[^/]+)\/(issues|pulls)\/comments\/(\d+)\/reactions$/,
    answer(req, [, repo = '', area = '', id = ''], { state, account, note }) {
      const body = jsonBody(req)
      if (!body.ok) return body.answer
      const content = body.value['content']
      if (typeof content !== 'string' || !REACTIONS.has(content)) return [422, { message: 'Validation Failed', errors: [{ field: 'content', code: 'invalid' }] }]
      const login = account?.login ?? ''
      const on = area === 'issues' ? 'issue' : 'review'
      const again = state.repository.reactions(repo).find((r) => r.on === on && r.commentId === Number(id) && r.content === content && r.login === login)
      // GitHub answers 200 with the reaction a user already left, 201 for a new one.
      if (again === undefined) state.repository.addReaction({ repo, on, commentId: Number(id), content, login })
      note(`reacted ${content} to ${on} comment ${id}`)
      return [again === undefined ? 201 : 200, { id: 1, content, user: { login } }]
    },
  },
  {
    method: 'GET',
    path: /^\/repos\/([^/]+\/[^/]+)\/collaborators\/([^/]+)\/permission$/,
    answer(_req, [, repo = '', login = ''], { state }) {
      const permission = state.repository.permission(repo, decodeURIComponent(login))
      // GitHub answers 404 for someone who is not a collaborator of a private repository; `none` otherwise.
      return [200, { permission, role_name: permission, user: { login: decodeURIComponent(login) } }]
    },
  },
]
