/**
 * Which lines of a pull request a review comment may address: the changed files as the code host lists them (the
 * shape of GitHub's `GET /pulls/{n}/files`), each file's patch parsed with jsdiff (`diff`'s `parsePatch`, the
 * parser most of the ecosystem uses) into its hunks, and for each hunk the lines it shows on each side. A comment
 * may only go on such a line (docs/reviews.md, "Findings"); GitHub refuses a whole review when one comment does
 * not.
 */
import { parsePatch } from 'diff'
import type { Side } from './document.js'

/** A file's status in the pull request, GitHub's words. */
export type FileStatus = 'added' | 'removed' | 'modified' | 'renamed' | 'copied' | 'changed' | 'unchanged'

/** One changed file, as GitHub's pull request files API returns it (the fields the anchoring reads). */
export interface ChangedFile {
  /** The path after the change. */
  readonly filename: string
  /** The path before a rename (GitHub sends it only for `renamed`). */
  readonly previous_filename?: string | undefined
  readonly status: FileStatus
  /**
   * The file's hunks in unified format, without the `---`/`+++` header. Absent for a binary file, a diff too
   * large to show, and a rename without changes.
   */
  readonly patch?: string | undefined
}

/**
 * One line a hunk shows: its kind and its numbers. A line on one side only carries the other side's running count
 * too (where it would be), as GitLab's line codes do; GitLab's positions need both numbers of a context line.
 */
export interface DiffLine {
  readonly kind: 'added' | 'removed' | 'context'
  /** Its number in the old file (for an added line: the old file's line count before it, plus one). */
  readonly old: number
  /** Its number in the new file (for a removed line: the new file's line count before it, plus one). */
  readonly new: number
}

/** One hunk: the lines it shows, by side (`RIGHT`: added and context lines, new numbers; `LEFT`: removed and context lines, old numbers). */
export interface DiffHunk {
  readonly oldStart: number
  readonly oldLines: number
  readonly newStart: number
  readonly newLines: number
  readonly right: ReadonlyMap<number, DiffLine>
  readonly left: ReadonlyMap<number, DiffLine>
}

/** A changed file and what of it a comment may address. */
export interface FileLines {
  readonly file: ChangedFile
  /**
   * The hunks; `'no_patch'` when GitHub sent none, `'unreadable'` when the patch could not be parsed (a comment on
   * such a file would be a guess).
   */
  readonly hunks: readonly DiffHunk[] | 'no_patch' | 'unreadable'
}

/** The changed files of one head, found by their path after the change and, for a rename, their path before it. */
export interface DiffLines {
  /** The file a finding's path names: its path now, else a rename's previous path. */
  fileOf(path: string): FileLines | undefined
}

/** Reads the changed files (each patch parsed once). */
export function diffLines(files: readonly ChangedFile[]): DiffLines {
  const byPath = new Map<string, FileLines>()
  const byPreviousPath = new Map<string, FileLines>()
  for (const file of files) {
    const lines: FileLines = { file, hunks: hunksOf(file) }
    byPath.set(file.filename, lines)
    if (file.previous_filename !== undefined && file.previous_filename !== file.filename) byPreviousPath.set(file.previous_filename, lines)
  }
  return { fileOf: (path) => byPath.get(path) ?? byPreviousPath.get(path) }
}

/** The index of the hunk that shows `line` on `side`, or -1. */
export function hunkIndexOf(hunks: readonly DiffHunk[], side: Side, line: number): number {
  return hunks.findIndex((hunk) => (side === 'RIGHT' ? hunk.right : hunk.left).has(line))
}

function hunksOf(file: ChangedFile): FileLines['hunks'] {
  if (file.patch === undefined || file.patch === '') return 'no_patch'
  // GitHub's patch is the hunks alone; jsdiff reads a file's diff, so it gets the header GitHub left out.
  let parsed
  try {
    parsed = parsePatch(`--- a/file\n+++ b/file\n${file.patch}`)
  } catch {
    return 'unreadable'
  }
  if (parsed.length !== 1) return 'unreadable'
  return parsed[0]!.hunks.map((hunk) => {
    const right = new Map<number, DiffLine>()
    const left = new Map<number, DiffLine>()
    // jsdiff moves the start of an empty side one up (`-0,0` reads as 1), which is also the running count there.
    let oldLine = hunk.oldStart
    let newLine = hunk.newStart
    for (const text of hunk.lines) {
      const kind = text[0]
      if (kind === '+') right.set(newLine, { kind: 'added', old: oldLine, new: newLine++ })
      else if (kind === '-') left.set(oldLine, { kind: 'removed', old: oldLine++, new: newLine })
      else if (kind === ' ' || text === '') {
        const line: DiffLine = { kind: 'context', old: oldLine++, new: newLine++ }
        right.set(line.new, line)
        left.set(line.old, line)
      }
      // `\ No newline at end of file` is a marker, not a line of either file.
    }
    return { oldStart: hunk.oldStart, oldLines: hunk.oldLines, newStart: hunk.newStart, newLines: hunk.newLines, right, left }
  })
}
