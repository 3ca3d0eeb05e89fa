/**
 * The fake GitHub's Checks API: create a check run (`POST /repos/O/R/check-runs`) and update it
 * (`PATCH /repos/O/R/check-runs/ID`), with GitHub's validation of the fields the gateway sends (docs: shared spec
 * §6): only an App's installation token may write checks (a person's token gets 403), `name` and `head_sha` are
 * required, `conclusion` is required with `status: completed` and sending one forces `completed`, `output` needs
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

/** A check run in the shape GitHub's REST API gives it. */
export function restCheckRun(run: FakeCheckRun): Record<string, unknown> {
  return {
    id: run.id,
    name: run.name,
    head_sha: run.headSha,
    status: run.status,
    conclusion: run.conclusion,
    details_url: run.detailsUrl,
    html_url: `https://github.com/${run.repo}/runs/${run.id}`,
    output: { ...(run.output ?? { title: null, summary: null }), annotations_count: run.annotations.length },
    app: { slug: run.login.replace(/\[bot\]$/, '') },
  }
}

const invalid = (message: string): FakeAnswer => [422, { message: 'Invalid request.', errors: [message], documentation_url: DOCS, status: '422' }]

/** The fields common to create and update, checked; the changes to apply, or GitHub's 422. */
function fields(body: Record<string, unknown>): { ok: true, status?: FakeCheckRun['status'], conclusion?: string, detailsUrl?: string, output?: NonNullable<FakeCheckRun['output']>, annotations: FakeAnnotation[] } | { ok: false, answer: FakeAnswer } {
  const { status, conclusion, details_url: detailsUrl, output } = body
  if (status !== undefined && !(STATUSES as readonly unknown[]).includes(status)) return { ok: false, answer: invalid(`"status" ${JSON.stringify(status)} is not one of ${STATUSES.join(', ')}`) }
  if (conclusion !== undefined && !CONCLUSIONS.includes(conclusion as string)) return { ok: false, answer: invalid(`"conclusion" ${JSON.stringify(conclusion)} is not one of ${CONCLUSIONS.join(', ')}`) }
  if (status === 'completed' && conclusion === undefined) return { ok: false, answer: invalid('"conclusion" is required when "status" is "completed"') }
  if (detailsUrl !== undefined && (typeof detailsUrl !== 'string' || !/^https?:\/\//.test(detailsUrl))) return { ok: false, answer: invalid('"details_url" must be a URL') }
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
  return { ok: true, ...(finalStatus === undefined ? {} : { status: finalStatus }), ...(conclusion === undefined ? {} : { conclusion: conclusion as string }), ...(detailsUrl === undefined ? {} : { detailsUrl: detailsUrl }), ...(kept === undefined ? {} : { output: kept }), annotations }
}

/** Only a GitHub App writes checks: an installation token (scoped to repositories) is one; a person's is not. */
const notApp: FakeAnswer = [403, { message: 'You must authenticate via a GitHub App.', documentation_url: DOCS, status: '403' }]

/** `POST /repos/O/R/check-runs`, `PATCH /repos/O/R/check-runs/ID`. */
export const checkRoutes: readonly FakeRoute[] = [
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
      const run = state.createCheckRun({ repo, name, headSha: headSha.toLowerCase(), login: account.login, createdAs: checked.status ?? 'queued', status: checked.status ?? 'queued', conclusion: checked.conclusion ?? null, detailsUrl: checked.detailsUrl ?? null, output: checked.output ?? null })
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
      if (checked.detailsUrl !== undefined) run.detailsUrl = checked.detailsUrl
      if (checked.output !== undefined) run.output = checked.output
      run.annotations.push(...checked.annotations)
      note(`updated check run ${run.id} ${run.status}${run.conclusion === null ? '' : `/${run.conclusion}`} (+${checked.annotations.length} annotations)`)
      return [200, restCheckRun(run)]
    },
  },
]
