/**
 * The fake GitLab's commit statuses (`POST /projects/:id/statuses/:sha`, and `GET
 * /projects/:id/repository/commits/:sha/statuses`), checked as GitLab checks them: a known state, a commit the
 * project has, `target_url` and `description` within 255 characters. A post finds the status of that commit, name
 * and ref that is still `pending` or `running` and moves it by GitLab's state machine (`pending` → `running` →
 * `success` | `failed` | `canceled`; `skipped` only before it runs); a status that finished stays as it is and the
 * post starts a new one. A move GitLab's state machine has no edge for is GitLab's 400 (`Cannot transition status
 * via :run from :running`); with `strictStatuses` off, a repeat of the state a status is in is taken as done.
 */
import { ID, jsonBody, notFound, paged, type GitlabRoute } from './router.js'
import type { FakeGitlabStatus } from './state.js'

const STATES = ['pending', 'running', 'success', 'failed', 'canceled', 'skipped'] as const
/** The state machine's event each posted state fires (GitLab's `enqueue`, `run`, `succeed`, `drop`, `cancel`, `skip`). */
const EVENT: Record<string, string> = { pending: 'enqueue', running: 'run', success: 'succeed', failed: 'drop', canceled: 'cancel', skipped: 'skip' }
/** The states each event moves from (a new status is `created`). */
const FROM: Record<string, readonly string[]> = {
  pending: ['created'],
  // GitLab enqueues first when it can (`created` → `pending`), then runs.
  running: ['created', 'pending'],
  success: ['created', 'pending', 'running'],
  failed: ['created', 'pending', 'running'],
  canceled: ['created', 'pending', 'running'],
  skipped: ['created', 'pending'],
}
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
      const ref = typeof body['ref'] === 'string' ? body['ref'] : null
      // GitLab moves the status of this commit, name and ref that has not finished; any other post starts one.
      const current = project.statuses.findLast((s) => s.sha === sha && s.name === name && s.ref === ref && !FINISHED.has(s.status))
      if (current !== undefined) {
        if (!FROM[state]!.includes(current.status)) {
          if (current.status === state && !statusRules.strict) return [201, statusJson(current)]
          return [400, { message: `Cannot transition status via :${EVENT[state]} from :${current.status} (Reason(s): Status cannot transition via "${EVENT[state]}")` }]
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
        ref,
        author: ctx.user.username,
        history: [state],
      }
      project.statuses.push(status)
      ctx.note(`status ${name} of ${sha.slice(0, 7)}: ${state} (new)`)
      return [201, statusJson(status)]
    },
  },
  {
    // `name` and `ref` filter; without `all=true`, only the newest status of each name (GitLab's "latest").
    method: 'GET',
    path: new RegExp(`^/projects/${ID}/repository/commits/([0-9a-fA-F]{7,64})/statuses$`),
    answer(req, m, ctx) {
      const project = ctx.state.project(decodeURIComponent(m[1]!))
      if (project === undefined) return notFound('Project')
      const sha = m[2]!.toLowerCase()
      const name = req.query.get('name')
      const ref = req.query.get('ref')
      let rows = project.statuses.filter((s) => s.sha === sha && (name === null || s.name === name) && (ref === null || s.ref === ref))
      if (req.query.get('all') !== 'true') rows = rows.filter((s) => !rows.some((other) => other.name === s.name && other.id > s.id))
      return paged(req, rows.map(statusJson))
    },
  },
]

function statusJson(s: FakeGitlabStatus): Record<string, unknown> {
  return { id: s.id, sha: s.sha, ref: s.ref, status: s.status, name: s.name, target_url: s.target_url, description: s.description, allow_failure: false, author: { username: s.author } }
}
