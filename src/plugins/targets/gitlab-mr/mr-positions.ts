/**
 * From GitLab's diff of one version to what the shared anchoring reads (src/core/review/diff-lines.ts), and from
 * an inline placement back to the text position GitLab wants. GitLab names a line by the pair of numbers it has
 * in the version's diff, and refuses (400 `line_code can't be blank`) any other pair: an added line is
 * `new_line` alone, a removed line `old_line` alone, an unchanged (context) line both. A range is a `line_range`
 * of two line codes, `<sha1 of the path>_<old>_<new>`, where a one-sided line carries the other side's running
 * count, as `DiffLine` keeps it.
 */
import { createHash } from 'node:crypto'
import type { Placement } from '../../../core/review/anchor.js'
import type { ChangedFile, DiffLine } from '../../../core/review/diff-lines.js'
import type { LineRangeEnd, MrDiff, MrVersion, TextPosition } from './mr-api.js'

/** A version's files as the anchoring reads them; a file GitLab shows no hunks for (collapsed, too large, binary) has no patch. */
export function changedFilesOf(diffs: readonly MrDiff[]): ChangedFile[] {
  return diffs.map((d) => ({
    filename: d.new_path,
    ...(d.renamed_file && d.old_path !== d.new_path ? { previous_filename: d.old_path } : {}),
    status: d.new_file ? 'added' : d.deleted_file ? 'removed' : d.renamed_file ? 'renamed' : 'modified',
    // GitLab empties `diff` for a collapsed or too large file, and a binary one's is a sentence, not hunks.
    ...(d.collapsed === true || d.too_large === true || !d.diff.startsWith('@@') ? {} : { patch: d.diff }),
  }))
}

/** GitLab's line code of `line` in the file at `path`: `<sha1(path)>_<old>_<new>`. */
export function lineCode(path: string, line: DiffLine): string {
  return `${createHash('sha1').update(path).digest('hex')}_${line.old}_${line.new}`
}

/** The numbers GitLab wants for a line of its kind: added → new only, removed → old only, context → both. */
export function lineNumbers(line: DiffLine): { old_line?: number, new_line?: number } {
  if (line.kind === 'added') return { new_line: line.new }
  if (line.kind === 'removed') return { old_line: line.old }
  return { old_line: line.old, new_line: line.new }
}

/**
 * The text position of an inline placement on `version`'s diff. `files` are the version's files (the old path of
 * a renamed file is GitLab's `old_path`; both paths are sent for every file, as GitLab requires).
 */
export function textPosition(placement: Extract<Placement, { kind: 'inline' }>, files: readonly ChangedFile[], version: MrVersion): TextPosition {
  const { position, lines } = placement
  const file = files.find((f) => f.filename === position.path)
  const oldPath = file?.previous_filename ?? position.path
  const base = {
    position_type: 'text' as const,
    base_sha: version.baseSha,
    start_sha: version.startSha,
    head_sha: version.headSha,
    old_path: oldPath,
    new_path: position.path,
    ...lineNumbers(lines.end),
  }
  if (position.start_line === undefined) return base
  const end = (line: DiffLine): LineRangeEnd => ({ line_code: lineCode(position.path, line), type: line.kind === 'added' ? 'new' : 'old', ...lineNumbers(line) })
  return { ...base, line_range: { start: end(lines.start), end: end(lines.end) } }
}

/**
 * A comment's body for GitLab: a ```suggestion block replaces the commented line, or with `:-N+0` the N lines
 * above it too, so a range's suggestion says how many (GitHub's block replaces the whole range by itself).
 */
export function gitlabSuggestion(body: string, lines: number): string {
  return lines <= 1 ? body : body.replace(/^(`{3,})suggestion$/m, `$1suggestion:-${lines - 1}+0`)
}
