/**
 * The fake GitHub's Checks API: create a check run (`POST /repos/O/R/check-runs`), update it
 * (`PATCH /repos/O/R/check-runs/ID`) and list a commit's runs (`GET /repos/O/R/commits/REF/check-runs`, by
 * `check_name`, `status`, `app_id` and `filter`), with GitHub's validation of the fields the gateway sends (docs:
 * shared spec §6): only an App's installation token may write checks (a person's token gets 403), `name` and
 * `head_sha` are required, `conclusion` is required with `status: completed` or a `completed_at` and sending one
 * forces `completed` (GitHub then sets `completed_at` when none was sent), times are ISO 8601, `output` needs
 * `title` and `summary`, at most 50 annotations per request (each request appends), each with its path, lines
 * and a known level.
 */
import { jsonBody, NOT_FOUND, type FakeAnswer, type FakeRoute } from './router.js'
import { SHA_PATTERN } from './admin.js'
import type { FakeAnnotation, FakeCheckRun } from './state.js'

const DOCS = 'https://docs.github.com/rest/checks/runs'
const STATUSES = ['queued', 'in_progress', 'completed'] as const
const CONCLUSIONS = ['action_required', 'cancelled', 'failure', 'neutral', 'success', 'skipped', 'timed_out']
const LEVELS = ['notice', 'warning', 'failure'] as const
/** GitHub's cap on annotations in one create or update. */
export const ANNOTATIONS_PER_REQUEST = 50
const TEXT_LIMIT = 65_535
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/
/** GitHub's largest page. */
const MAX_PER_PAGE = 100

/** A check run in the shape GitHub's REST API gives it. */
export function restCheckRun(run: FakeCheckRun): Record<string, unknown> {
  return {
    id: run.id,
    name: run.name,
    head_sha: run.headSha,
    status: run.status,
    conclusion: run.conclusion,
    details_url: run.detailsUrl,
    external_id: run.externalId,
    started_at: run.startedAt,
    completed_at: run.completedAt,
    html_url: `https://github.com/${run.repo}/runs/${run.id}`,
    output: { ...(run.output ?? { title: null, summary: null }), annotations_count: run.annotations.length },
    app: { slug: run.login.replace(/\[bot\]$/, '') },
  }
}

const invalid = (message: string): FakeAnswer => [422, { message: 'Invalid request.', errors: [message], documentation_url: DOCS, status: '422' }]

/** The fields common to create and update, checked; the changes to apply, or GitHub's 422. */
function fields(body: Record<string, unknown>): { ok: true, status?: FakeCheckRun['status'], conclusion?: string, detailsUrl?: string, externalId?: string, startedAt?: string, completedAt?: string, output?: NonNullable<FakeCheckRun['output']>, annotations: FakeAnnotation[] } | { ok: false, answer: FakeAnswer } {
  const { status, conclusion, details_url: detailsUrl, external_id: externalId, started_at: startedAt, completed_at: completedAt, output } = body
  if (status !== undefined && !(STATUSES as readonly unknown[]).includes(status)) return { ok: false, answer: invalid(`"status" ${JSON.stringify(status)} is not one of ${STATUSES.join(', ')}`) }
  if (conclusion !== undefined && !CONCLUSIONS.includes(conclusion as string)) return { ok: false, answer: invalid(`"conclusion" ${JSON.stringify(conclusion)} is not one of ${CONCLUSIONS.join(', ')}`) }
  if (status === 'completed' && conclusion === undefined) return { ok: false, answer: invalid('"conclusion" is required when "status" is "completed"') }
  if (completedAt !== undefined && conclusion === undefined) return { ok: false, answer: invalid('"conclusion" is required when "completed_at" is given') }
  for (const [key, time] of [['started_at', startedAt], ['completed_at', completedAt]] as const) {
    if (time !== undefined && (typeof time !== 'string' || !ISO_8601.test(time) || Number.isNaN(Date.parse(time)))) return { ok: false, answer: invalid(`"${key}" must be an ISO 8601 timestamp (YYYY-MM-DDTHH:MM:SSZ)`) }
  }
  if (detailsUrl !== undefined && (typeof detailsUrl !== 'string' || !/^https?:\/\//.test(detailsUrl))) return { ok: false, answer: invalid('"details_url" must be a URL') }
  if (externalId !== undefined && typeof externalId !== 'string') return { ok: false, answer: invalid('"external_id" must be a string') }
  const annotations: FakeAnnotation[] = []
  let kept: NonNullable<FakeCheckRun['output']> | undefined
  if (output !== undefined) {
    const o = output as Record<string, unknown> | null
    if (o === null || typeof o !== 'object' || typeof o['title'] !== 'string' || typeof o['summary'] !== 'string') return { ok: false, answer: invalid('"output" needs "title" and "summary"') }
    if ((o['summary']).length > TEXT_LIMIT || (typeof o['text'] === 'string' && o['text'].length > TEXT_LIMIT)) return { ok: false, answer: invalid(`"output.summary" and "output.text" are at most ${TEXT_LIMIT} characters`) }
    kept = { title: o['title'], summary: o['summary'], ...(typeof o['text'] === 'string' ? { text: o['text'] } : {}) }
    const list = o['annotations'] ?? []
    if (!Array.isArray(list)) return { ok: false, answer: invalid('"output.annotations" must be an array') }
    if (list.length > ANNOTATIONS_PER_REQUEST) return { ok: false, answer: invalid(`at most ${ANNOTATIONS_PER_REQUEST} annotations per request`) }
    for (const a of list as Record<string, unknown>[]) {
      const { path, start_line: start, end_line: end, annotation_level: level, message, title } = a
      const line = (n: unknown) => Number.isInteger(n) && (n as number) >= 1
      if (typeof path !== 'string' || path === '' || !line(start) || !line(end) || (end as number) < (start as number)) return { ok: false, answer: invalid('an annotation needs "path", "start_line" and "end_line" (end not before start)') }
      if (!(LEVELS as readonly unknown[]).includes(level)) return { ok: false, answer: invalid(`"annotation_level" must be one of ${LEVELS.join(', ')}`) }
      if (typeof message !== 'string' || message === '' || message.length > 64 * 1024) return { ok: false, answer: invalid('an annotation needs a "message" of at most 64 KB') }
      annotations.push({ path, start_line: start as number, end_line: end as number, annotation_level: level as FakeAnnotation['annotation_level'], message, ...(typeof title === 'string' ? { title } : {}) })
    }
  }
  // A conclusion forces the run to completed, as GitHub does.
  const finalStatus = conclusion !== undefined ? 'completed' : status as FakeCheckRun['status'] | undefined
  return {
    ok: true, ...(finalStatus === undefined ? {} : { status: finalStatus }), ...(conclusion === undefined ? {} : { conclusion: conclusion as string }), ...(detailsUrl === undefined ? {} : { detailsUrl: detailsUrl }), ...(externalId === undefined ? {} : { externalId }),
    ...(startedAt === undefined ? {} : { startedAt: startedAt as string }), ...(completedAt === undefined ? {} : { completedAt: completedAt as string }), ...(kept === undefined ? {} : { output: kept }), annotations,
  }
}

/** Only a GitHub App writes checks: an installation token (scoped to repositories) is one; a person's is not. */
const notApp: FakeAnswer = [403, { message: 'You must authenticate via a GitHub App.', documentation_url: DOCS, status: '403' }]

/** `POST /repos/O/R/check-runs`, `PATCH /repos/O/R/check-runs/ID`, `GET /repos/O/R/commits/REF/check-runs`. */
export const checkRoutes: readonly FakeRoute[] = [
  {
    // Any token that can read the repository lists its runs; `filter=latest` (GitHub's default) keeps the newest
    // run of each name and App, `all` every one. REF is a commit SHA here (GitHub also takes a branch or a tag).
    method: 'GET',
    path: /^\/repos\/([^/]+\/[^/]+)\/commits\/([^/]+)\/check-runs$/,
    answer(req, [, repo = '', ref = ''], { state }) {
      if (!SHA_PATTERN.test(ref)) return [422, { message: `No commit found for SHA: ${ref}`, documentation_url: DOCS, status: '422' }]
      const { query } = req
      const filter = query.get('filter') ?? 'latest'
      const status = query.get('status')
      if (filter !== 'latest' && filter !== 'all') return invalid('"filter" must be one of latest, all')
      if (status !== null && !(STATUSES as readonly string[]).includes(status)) return invalid(`"status" must be one of ${STATUSES.join(', ')}`)
      const perPage = Math.min(Number(query.get('per_page') ?? 30) || 30, MAX_PER_PAGE)
      const page = Math.max(Number(query.get('page') ?? 1) || 1, 1)
      let runs = state.checkRuns(repo).filter((r) => r.headSha === ref.toLowerCase())
      const name = query.get('check_name')
      if (name !== null) runs = runs.filter((r) => r.name === name)
      if (filter === 'latest') runs = runs.filter((r) => !runs.some((other) => other.name === r.name && other.login === r.login && other.id > r.id))
      if (status !== null) runs = runs.filter((r) => r.status === status)
      // Newest first.
      runs = [...runs].sort((a, b) => b.id - a.id)
      return [200, { total_count: runs.length, check_runs: runs.slice((page - 1) * perPage, page * perPage).map(restCheckRun) }]
    },
  },
  {
    method: 'POST',
    path: /^\/repos\/([^/]+\/[^/]+)\/check-runs$/,
    answer(req, [, repo = ''], { state, account, note }) {
      if (account?.repos === undefined) return notApp
      const parsed = jsonBody(req)
      if (!parsed.ok) return parsed.answer
      const { name, head_sha: headSha } = parsed.value
      if (typeof name !== 'string' || name.trim() === '') return invalid('"name" is required')
      if (typeof headSha !== 'string' || !SHA_PATTERN.test(headSha)) return invalid('"head_sha" is required and must be a commit SHA')
      const checked = fields(parsed.value)
      if (!checked.ok) return checked.answer
      const status = checked.status ?? 'queued'
      const now = new Date().toISOString()
      const run = state.createCheckRun({
        repo, name, headSha: headSha.toLowerCase(), login: account.login, createdAs: status, status, conclusion: checked.conclusion ?? null, detailsUrl: checked.detailsUrl ?? null, externalId: checked.externalId ?? null,
        startedAt: checked.startedAt ?? now, completedAt: status === 'completed' ? checked.completedAt ?? now : null, output: checked.output ?? null,
      })
      run.annotations.push(...checked.annotations)
      note(`created check run ${run.id} "${name}" ${run.status}${run.conclusion === null ? '' : `/${run.conclusion}`} on ${run.headSha.slice(0, 7)}`)
      return [201, restCheckRun(run)]
    },
  },
  {
    method: 'PATCH',
    path: /^\/repos\/([^/]+\/[^/]+)\/check-runs\/(\d+)$/,
    answer(req, [, repo = '', id = ''], { state, account, note }) {
      if (account?.repos === undefined) return notApp
      const run = state.checkRuns(repo).find((r) => r.id === Number(id))
      if (run === undefined) return NOT_FOUND
      const parsed = jsonBody(req)
      if (!parsed.ok) return parsed.answer
      const checked = fields(parsed.value)
      if (!checked.ok) return checked.answer
      if (checked.status !== undefined) run.status = checked.status
      if (checked.conclusion !== undefined) run.conclusion = checked.conclusion
      if (checked.startedAt !== undefined) run.startedAt = checked.startedAt
      if (run.status === 'completed' && (checked.completedAt !== undefined || run.completedAt === null)) run.completedAt = checked.completedAt ?? new Date().toISOString()
      if (checked.detailsUrl !== undefined) run.detailsUrl = checked.detailsUrl
      if (checked.externalId !== undefined) run.externalId = checked.externalId
      if (checked.output !== undefined) run.output = checked.output
      run.annotations.push(...checked.annotations)
      note(`updated check run ${run.id} ${run.status}${run.conclusion === null ? '' : `/${run.conclusion}`} (+${checked.annotations.length} annotations)`)
      return [200, restCheckRun(run)]
    },
  },
]
