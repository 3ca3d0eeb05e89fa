/**
 * How the fake GitLab decides whether a diff position names a line of a version's diff, as GitLab does: it
 * walks the file's hunks itself (not with the gateway's parser, so the two check each other) and accepts only
 * the pair of numbers GitLab's line for that row has: an added line `new_line` alone, a removed line `old_line`
 * alone, an unchanged line both. Anything else, a line outside every hunk, a path that is not the file's, stale
 * SHAs, is GitLab's 400 `line_code can't be blank`. A range (`line_range`) must name two line codes of one hunk,
 * in order, each with its type (`new` for an added line, else `old`), the stricter reading of GitLab's docs.
 */
import { createHash } from 'node:crypto'
import type { FakeGitlabDiff, FakeVersion } from './state.js'

/** GitLab's answer to a position it cannot place. */
export const LINE_CODE_ERROR = '400 Bad request - Note {:line_code=>["can\'t be blank", "must be a valid line code"]}'

/** One row of a hunk: its kind, its numbers (a one-sided row carries the other side's running count), its hunk. */
export interface DiffRow {
  readonly kind: 'added' | 'removed' | 'context'
  readonly old: number
  readonly new: number
  readonly hunk: number
  readonly code: string
}

/** The rows of a file's diff. */
export function diffRows(file: FakeGitlabDiff): DiffRow[] {
  const rows: DiffRow[] = []
  const hash = createHash('sha1').update(file.new_path).digest('hex')
  let hunk = -1
  let oldLine = 0
  let newLine = 0
  for (const text of file.diff.split('\n')) {
    const header = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(text)
    if (header !== null) {
      hunk++
      // A side of count 0 names the line before the change (0 for an empty file): its running count is the next.
      oldLine = Number(header[1]) + (header[2] === '0' ? 1 : 0)
      newLine = Number(header[3]) + (header[4] === '0' ? 1 : 0)
      continue
    }
    if (hunk < 0 || text.startsWith('\\')) continue
    const kind = text[0] === '+' ? 'added' : text[0] === '-' ? 'removed' : text[0] === ' ' ? 'context' : undefined
    if (kind === undefined) continue
    const row = { kind, old: oldLine, new: newLine, hunk, code: `${hash}_${oldLine}_${newLine}` } as const
    rows.push(row)
    if (kind !== 'added') oldLine++
    if (kind !== 'removed') newLine++
  }
  return rows
}

/** Whether `row` is the line `old_line`/`new_line` names, with exactly the numbers GitLab wants for its kind. */
function names(row: DiffRow, oldLine: unknown, newLine: unknown): boolean {
  if (row.kind === 'added') return newLine === row.new && oldLine == null
  if (row.kind === 'removed') return oldLine === row.old && newLine == null
  return oldLine === row.old && newLine === row.new
}

/** Undefined when `position` names a line of `version`'s diff; else the reason (the fake answers GitLab's 400). */
export function positionProblem(position: Record<string, unknown>, version: FakeVersion | undefined): string | undefined {
  if (position['position_type'] !== 'text') return 'position_type is not text'
  if (version === undefined) return 'the merge request has no diff version'
  for (const [key, want] of [['base_sha', version.base_commit_sha], ['start_sha', version.start_commit_sha], ['head_sha', version.head_commit_sha]] as const) {
    if (position[key] !== want) return `${key} is not the latest version's`
  }
  const oldPath = position['old_path']
  const newPath = position['new_path']
  if (typeof oldPath !== 'string' || typeof newPath !== 'string') return 'old_path and new_path are both required'
  const file = version.diffs.find((d) => d.new_path === newPath && d.old_path === oldPath)
  if (file === undefined) return 'no file of the diff has these paths'
  const rows = diffRows(file)
  const end = rows.find((r) => names(r, position['old_line'], position['new_line']))
  if (end === undefined) return 'old_line/new_line name no line of the diff'
  const range = position['line_range']
  if (range === undefined || range === null) return undefined
  const ends = range as { start?: Record<string, unknown>, end?: Record<string, unknown> }
  const at = (e: Record<string, unknown> | undefined): DiffRow | undefined => {
    const row = rows.find((r) => r.code === e?.['line_code'])
    return row !== undefined && e?.['type'] === (row.kind === 'added' ? 'new' : 'old') ? row : undefined
  }
  const first = at(ends.start)
  const last = at(ends.end)
  if (first === undefined || last === undefined) return 'a line_range end is not a line code of the diff (or its type is wrong)'
  if (last !== end) return 'line_range.end is not the line old_line/new_line name'
  if (first.hunk !== last.hunk || rows.indexOf(first) > rows.indexOf(last)) return 'line_range must run forwards within one hunk'
  return undefined
}
