/**
 * The fake GitLab's commit statuses (`POST /projects/:id/statuses/:sha`), checked as GitLab checks them: a known
 * state, a commit the project has, `target_url` and `description` within 255 characters. With `strictStatuses`
 * (on by default) a repeat of the state a status is already in is refused as older GitLab refuses it
 * (`Cannot transition status via :run from :running`); a state after a finished one starts a new job.
 */
import { ID, jsonBody, notFound, type GitlabRoute } from './router.js'
import type { FakeGitlabStatus } from './state.js'

const STATES = ['pending', 'running', 'success', 'failed', 'canceled', 'skipped'] as const
const EVENT: Record<string, string> = { pending: 'enqueue', running: 'run', success: 'succeed', failed: 'drop', canceled: 'cancel', skipped: 'skip' }
const FINISHED = new Set(['success', 'failed', 'canceled', 'skipped'])

/** Whether a repeat of the same state is refused (older GitLab); switched by the server's option. */
export const statusRules = { strict: true }

export const statusRoutes: readonly GitlabRoute[] = [
  {
    method: 'POST',
    path: new RegExp(`^/projects/${ID}/statuses/([0-9a-fA-F]{7,64})$`),
    writes: true,
    answer(req, m, ctx) {
      const project = ctx.state.project(decodeURIComponent(m[1]!))
      if (project === undefined) return notFound('Project')
      const sha = m[2]!.toLowerCase()
      const known = [...project.mergeRequests.values()].some((mr) => mr.versions.some((v) => v.head_commit_sha === sha))
      if (!known) return notFound('Commit')
      const parsed = jsonBody(req)
      if (parsed.bad) return parsed.bad
      const body = parsed.value
      const state = body['state']
      if (typeof state !== 'string' || !(STATES as readonly string[]).includes(state)) return [400, { error: 'state does not have a valid value' }]
      const name = typeof body['name'] === 'string' ? body['name'] : typeof body['context'] === 'string' ? body['context'] : 'default'
      for (const key of ['target_url', 'description', 'ref'] as const) {
        const value = body[key]
        if (value !== undefined && (typeof value !== 'string' || value.length > 255)) return [400, { message: { [key]: ['is too long (maximum is 255 characters)'] } }]
      }
      const targetUrl = body['target_url'] as string | undefined
      if (targetUrl !== undefined && !/^https?:\/\//.test(targetUrl)) return [400, { message: { target_url: ['is blocked: Only allowed schemes are http, https'] } }]
      const current = project.statuses.findLast((s) => s.sha === sha && s.name === name)
      if (current !== undefined && !FINISHED.has(current.status)) {
        if (current.status === state && statusRules.strict) {
          return [400, { message: `Cannot transition status via :${EVENT[state]} from :${state} (Reason(s): Status cannot transition via "${EVENT[state]}")` }]
        }
        current.status = state
        current.history.push(state)
        if (targetUrl !== undefined) current.target_url = targetUrl
        if (typeof body['description'] === 'string') current.description = body['description']
        ctx.note(`status ${name} of ${sha.slice(0, 7)}: ${state}`)
        return [201, statusJson(current)]
      }
      const status: FakeGitlabStatus = {
        id: ctx.state.nextId(),
        sha,
        name,
        status: state,
        target_url: targetUrl ?? null,
        description: typeof body['description'] === 'string' ? body['description'] : null,
        ref: typeof body['ref'] === 'string' ? body['ref'] : null,
        author: ctx.user.username,
        history: [state],
      }
      project.statuses.push(status)
      ctx.note(`status ${name} of ${sha.slice(0, 7)}: ${state} (new)`)
      return [201, statusJson(status)]
    },
  },
]

function statusJson(s: FakeGitlabStatus): Record<string, unknown> {
  return { id: s.id, sha: s.sha, ref: s.ref, status: s.status, name: s.name, target_url: s.target_url, description: s.description, allow_failure: false, author: { username: s.author } }
}
