/**
 * The review corpus's diff (test/fixtures/reviews/corpus-diff.ts: several hunks, one-line hunks, renames with and
 * without changes, added, removed, binary and too-large files, CRLF lines, `---`/`+++` content) as GitLab diff
 * versions, and a finding on every line each hunk shows on each side, on lines no hunk shows, and ranges within
 * and across hunks, all posted by the gitlab_mr target to the fake GitLab, which places positions as GitLab does.
 *
 * The claims: zero position errors (GitLab's 400 `line_code can't be blank`); every finding visible exactly once,
 * as a discussion or in the note; a discussion exactly for each finding whose lines a hunk shows on its side (by
 * the fake's own walk of the diff, not the gateway's parser), on that line.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { diffRows, type DiffRow } from '../../src/dev/gitlab/positions.js'
import { startFakeGitlab, type FakeGitlab } from '../../src/dev/gitlab/server.js'
import type { FakeGitlabDiff } from '../../src/dev/gitlab/state.js'
import { gitlabMrDelivery } from '../../src/plugins/targets/gitlab-mr/gitlab-mr-target.js'
import { REVIEW_LIMITS } from '../../src/core/review/schema.js'
import { deliveryContext } from '../../src/testing/context.js'
import { CORPUS_FILES, UNCHANGED_PATHS, type CorpusFile } from '../fixtures/reviews/corpus-diff.js'
import { mergeRequestHook } from '../fixtures/gitlab.js'
import { sha } from '../fixtures/reviews.js'
import { seededRandom } from '../fixtures/seed.js'

const PROJECT = 'corpus/review'

/** A corpus file as GitLab's version lists it (GitLab has no copies: a copy is a changed file under its new name). */
function gitlabDiff(file: CorpusFile): FakeGitlabDiff {
  const diff = file.patch === undefined ? '' : `${file.patch}\n`
  const tooLarge = file.patch === undefined && file.status !== 'renamed'
  const renamed = file.status === 'renamed'
  return {
    old_path: renamed ? file.previous_filename! : file.filename,
    new_path: file.filename,
    new_file: file.status === 'added',
    deleted_file: file.status === 'removed',
    renamed_file: renamed,
    diff,
    ...(tooLarge ? { too_large: true } : {}),
  }
}

const DIFFS = CORPUS_FILES.map(gitlabDiff)
const ROWS = new Map(DIFFS.map((d) => [d.new_path, diffRows(d)]))

interface Generated {
  path: string
  line: number
  start_line?: number
  side: 'RIGHT' | 'LEFT'
  severity: 'critical' | 'major' | 'minor' | 'nit'
  title: string
  body: string
  suggestion?: string
}

const random = seededRandom('gitlab corpus')
const severities = ['critical', 'major', 'minor', 'nit'] as const

/** The line's number on `side`, when the row is on that side. */
function numberOn(row: DiffRow, side: 'RIGHT' | 'LEFT'): number | undefined {
  if (side === 'RIGHT') return row.kind === 'removed' ? undefined : row.new
  return row.kind === 'added' ? undefined : row.old
}

function generate(): Generated[] {
  const out: Generated[] = []
  const add = (f: Omit<Generated, 'title' | 'body' | 'severity'>) => {
    const id = `G${String(out.length).padStart(4, '0')}`
    out.push({ ...f, severity: severities[Math.floor(random.next() * 4)]!, title: `${id} ${f.side}`, body: `Finding ${id}.`, ...(f.side === 'RIGHT' && random.next() < 0.3 ? { suggestion: `// ${id}\n` } : {}) })
  }
  for (const d of DIFFS) {
    const rows = ROWS.get(d.new_path)!
    for (const side of ['RIGHT', 'LEFT'] as const) {
      const shown = rows.flatMap((r) => { const n = numberOn(r, side); return n === undefined ? [] : [{ n, hunk: r.hunk }] })
      for (const { n } of shown) add({ path: d.new_path, line: n, side })
      // Consecutive pairs make ranges: within a hunk, and across when the hunk changes.
      for (let i = 1; i < shown.length; i += 3) add({ path: d.new_path, start_line: shown[i - 1]!.n, line: shown[i]!.n, side })
      const max = Math.max(0, ...shown.map((s) => s.n))
      for (const n of [1, max + 5, Math.floor(max / 2) + 1]) if (!shown.some((s) => s.n === n)) add({ path: d.new_path, line: n, side })
      if (d.renamed_file && side === 'LEFT' && shown.length > 0) add({ path: d.old_path, line: shown[0]!.n, side })
    }
  }
  for (const path of UNCHANGED_PATHS) add({ path, line: 3, side: 'RIGHT' })
  return out
}

/** Whether a finding goes on the diff: its lines (both ends, in one hunk) are rows the file shows on its side. */
function placeable(f: Generated): DiffRow | undefined {
  const diff = DIFFS.find((d) => d.new_path === f.path) ?? DIFFS.find((d) => d.renamed_file && d.old_path === f.path)
  if (diff === undefined || diff.too_large === true) return undefined
  if (f.side === 'RIGHT' && diff.deleted_file === true) return undefined
  if (f.side === 'LEFT' && diff.new_file === true) return undefined
  const rows = ROWS.get(diff.new_path)!
  const at = (n: number) => rows.find((r) => numberOn(r, f.side) === n)
  const end = at(f.line)
  const start = at(f.start_line ?? f.line)
  return end !== undefined && start !== undefined && start.hunk === end.hunk ? end : undefined
}

const FINDINGS = generate()
const CHUNKS: Generated[][] = []
for (let i = 0; i < FINDINGS.length; i += REVIEW_LIMITS.findings) CHUNKS.push(FINDINGS.slice(i, i + REVIEW_LIMITS.findings))

let api: FakeGitlab
beforeAll(async () => {
  api = await startFakeGitlab()
  const target = gitlabMrDelivery({ token: api.token, apiUrl: api.apiUrl, timeoutMs: 10_000, maxInline: REVIEW_LIMITS.findings })
  for (const [index, findings] of CHUNKS.entries()) {
    const iid = index + 1
    const head = sha(`corpus-${iid}`)
    api.push(PROJECT, iid, head, DIFFS)
    await target.deliver({
      route: 'corpus',
      event: 'Merge Request Hook',
      deliveryId: `corpus-${iid}`,
      text: JSON.stringify({ summary: 'Corpus review.', findings }),
      extra: { project: PROJECT, mr_iid: String(iid) },
      payload: mergeRequestHook('update', { project: PROJECT, iid, head }) as never,
    }, deliveryContext())
  }
}, 120_000)
afterAll(() => api.close())

it('is large and covers every kind of line and file', () => {
  expect(FINDINGS.length).toBeGreaterThanOrEqual(200)
  console.log(`gitlab corpus: ${FINDINGS.length} findings in ${CHUNKS.length} reviews over ${DIFFS.length} files`)
  const kinds = new Set(FINDINGS.flatMap((f) => { const row = placeable(f); return row === undefined ? [] : [row.kind] }))
  expect([...kinds].sort()).toEqual(['added', 'context', 'removed'])
  expect(FINDINGS.filter((f) => placeable(f) === undefined).length).toBeGreaterThan(20)
})

it('gets no position error from GitLab, and posts each finding exactly once: on its line when the diff shows it, else in the note', () => {
  expect(api.positionErrors(), `seed ${random.seed}`).toBe(0)
  const problems: string[] = []
  for (const [index, findings] of CHUNKS.entries()) {
    const iid = index + 1
    const discussions = api.discussions(PROJECT, iid).map((d) => d.notes[0]!)
    const note = api.notes(PROJECT, iid).find((n) => n.type === null && !n.system)
    for (const f of findings) {
      const id = f.title.slice(0, 5)
      const inDiscussions = discussions.filter((d) => d.body.includes(`${id} `))
      const inNote = (note?.body.split(`${id} `).length ?? 1) - 1
      const row = placeable(f)
      if (inDiscussions.length + inNote !== 1) problems.push(`${id}: ${inDiscussions.length} discussions, ${inNote} in the note`)
      else if ((row !== undefined) !== (inDiscussions.length === 1)) problems.push(`${id}: placeable ${row !== undefined}, but ${inDiscussions.length === 1 ? 'a discussion' : 'folded'}`)
      else if (row !== undefined) {
        const position = inDiscussions[0]!.position!
        const want = row.kind === 'added' ? [null, row.new] : row.kind === 'removed' ? [row.old, null] : [row.old, row.new]
        const got = [position['old_line'] ?? null, position['new_line'] ?? null]
        if (JSON.stringify(got) !== JSON.stringify(want)) problems.push(`${id}: at ${JSON.stringify(got)}, the diff says ${JSON.stringify(want)}`)
      }
    }
  }
  expect(problems, `seed ${random.seed}`).toEqual([])
})
