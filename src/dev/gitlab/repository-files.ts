/**
 * The fake GitLab's repository files: `GET /projects/:id/repository/files/:file_path/raw?ref=`, a file's content
 * at a commit, as GitLab answers it (the raw bytes, `text/plain`, and the `X-Gitlab-*` headers with its size). The
 * path is one URL-encoded segment (`docs%2Fa.md`: GitLab's route takes no `/` in it); a path that climbs out
 * (`..`) is GitLab's 400; an unknown commit or file its 404.
 */
import { createHash } from 'node:crypto'
import { ID, notFound, RawText, type GitlabRoute } from './router.js'

export const repositoryFileRoutes: readonly GitlabRoute[] = [
  {
    method: 'GET',
    path: new RegExp(`^/projects/${ID}/repository/files/([^/]+)/raw$`),
    answer(req, m, ctx) {
      const project = ctx.state.project(decodeURIComponent(m[1]!))
      if (project === undefined) return notFound('Project')
      let path: string
      try {
        path = decodeURIComponent(m[2]!)
      } catch {
        return [400, { error: 'file_path should be a valid file path' }]
      }
      if (path.startsWith('/') || path.split('/').some((segment) => segment === '..' || segment === '')) return [400, { error: 'file_path should be a valid file path' }]
      const ref = req.query.get('ref') ?? 'HEAD'
      if (ref === '') return [400, { error: 'ref is empty' }]
      const files = project.files.get(ref.toLowerCase())
      if (files === undefined && !project.commits.has(ref.toLowerCase())) return notFound('Commit')
      const text = files?.get(path)
      if (text === undefined) return notFound('File')
      const size = Buffer.byteLength(text)
      return [200, new RawText(text), {
        'x-gitlab-file-path': path,
        'x-gitlab-file-name': path.split('/').at(-1)!,
        'x-gitlab-size': String(size),
        'x-gitlab-encoding': 'base64',
        'x-gitlab-ref': ref,
        'x-gitlab-commit-id': ref.toLowerCase(),
        'x-gitlab-blob-id': createHash('sha1').update(`blob ${size}\0${text}`).digest('hex'),
      }]
    },
  },
]
