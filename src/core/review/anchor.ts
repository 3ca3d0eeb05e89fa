/**
 * Where each finding of a review goes on a head's diff: inline, as a comment on its line or range, when the code
 * host will accept it there, or folded into the review's body with the reason it is not inline. The rules are
 * GitHub's (the strictest host's): a comment addresses lines a hunk shows on its side, a range lies inside one
 * hunk, a file without a patch takes no line comment. Deciding here, before posting, is what keeps one misplaced
 * finding from making the host refuse the whole review.
 */
import type { Finding, ReviewDocument, Severity, Side } from './document.js'
import { diffLines, hunkIndexOf, type ChangedFile, type DiffLine } from './diff-lines.js'
import { SEVERITIES } from './schema.js'

/** Why a finding is folded into the body instead of being an inline comment. */
export type FoldReason =
  /** The pull request does not change the file. */
  | 'file_not_in_diff'
  /** The host shows no patch for the file: binary, or too large. */
  | 'no_patch'
  /** A rename (or copy) without changes: no lines to address. */
  | 'renamed_without_changes'
  /** The host's patch could not be read. */
  | 'unreadable_patch'
  /** A `RIGHT` finding on a removed file: it has no new side. */
  | 'removed_file_right'
  /** A `LEFT` finding on an added file: it has no old side. */
  | 'added_file_left'
  /** A line (or an end of the range) no hunk shows on its side: an unchanged line. */
  | 'outside_hunks'
  /** Both ends are in the diff, in different hunks. */
  | 'across_hunks'
  /** More findings could go inline than the cap allows; the most severe went inline. */
  | 'over_cap'
  /** The code host refused it as a comment (see `refold`). */
  | 'refused'

/** An inline comment's position, in GitHub's words (`start_*` only for a range). */
export interface CommentPosition {
  /** The file's path after the change (a renamed file is addressed by its new name, on either side). */
  readonly path: string
  readonly line: number
  readonly side: Side
  readonly start_line?: number
  readonly start_side?: Side
}

/** Where one finding goes. */
export type Placement =
  /**
   * `position`: GitHub's words; `lines`: the diff's lines at the range's ends (`start` is `end` for one line), with
   * both numbers, for a host that addresses lines otherwise (GitLab: `old_line`/`new_line`, line codes).
   */
  | { readonly kind: 'inline', readonly position: CommentPosition, readonly lines: { readonly start: DiffLine, readonly end: DiffLine } }
  | { readonly kind: 'folded', readonly reason: FoldReason }

/** A review and, for each of its findings (same index), where it goes. */
export interface AnchoredReview {
  readonly review: ReviewDocument
  readonly placements: readonly Placement[]
  /** The cap it was anchored under. */
  readonly maxInline: number
}

/** Options of {@link anchorReview}. */
export interface AnchorOptions {
  /** At most this many inline comments (default {@link DEFAULT_MAX_INLINE}); the most severe findings get them. */
  readonly maxInline?: number
}

/**
 * The default cap on inline comments per review: enough for a real review, few enough that a pull request is not
 * buried (GitHub notifies once per review, but every comment is a thread someone reads).
 */
export const DEFAULT_MAX_INLINE = 30

/** Anchors each finding of `review` on the changed files of the head it reviews. */
export function anchorReview(review: ReviewDocument, files: readonly ChangedFile[], options: AnchorOptions = {}): AnchoredReview {
  const maxInline = options.maxInline ?? DEFAULT_MAX_INLINE
  if (!Number.isInteger(maxInline) || maxInline < 0) throw new RangeError(`maxInline must be a whole number ≥ 0, not ${maxInline}`)
  const lines = diffLines(files)
  const placements: Placement[] = review.findings.map((finding) => placementOf(finding, lines))
  // The cap: the most severe first, and in the document's order within a severity (a stable sort).
  const inline = placements.flatMap((placement, index) => (placement.kind === 'inline' ? [index] : []))
  inline.sort((a, b) => rank(review.findings[a]!.severity) - rank(review.findings[b]!.severity))
  for (const index of inline.slice(maxInline)) placements[index] = { kind: 'folded', reason: 'over_cap' }
  return { review, placements, maxInline }
}

/**
 * The review again, with the findings at `refused` (indexes into `review.findings`; a rendered comment names its
 * finding) folded with the reason `refused`: what a target does when the host still refuses some comments. Every
 * finding stays in the review exactly once; an index that is not inline is left as it is.
 */
export function refold(anchored: AnchoredReview, refused: Iterable<number>): AnchoredReview {
  const placements = [...anchored.placements]
  for (const index of refused) {
    if (placements[index]?.kind === 'inline') placements[index] = { kind: 'folded', reason: 'refused' }
  }
  return { ...anchored, placements }
}

function rank(severity: Severity): number {
  return SEVERITIES.indexOf(severity)
}

function placementOf(finding: Finding, diff: ReturnType<typeof diffLines>): Placement {
  const found = diff.fileOf(finding.path)
  if (found === undefined) return folded('file_not_in_diff')
  const { file, hunks } = found
  if (finding.side === 'RIGHT' && file.status === 'removed') return folded('removed_file_right')
  if (finding.side === 'LEFT' && file.status === 'added') return folded('added_file_left')
  if (hunks === 'unreadable') return folded('unreadable_patch')
  if (hunks === 'no_patch') {
    return folded((file.status === 'renamed' || file.status === 'copied') ? 'renamed_without_changes' : 'no_patch')
  }
  const end = hunkIndexOf(hunks, finding.side, finding.line)
  const start = finding.start_line === undefined ? end : hunkIndexOf(hunks, finding.side, finding.start_line)
  if (end === -1 || start === -1) return folded('outside_hunks')
  if (start !== end) return folded('across_hunks')
  const single = finding.start_line === undefined || finding.start_line === finding.line
  const position: CommentPosition = single
    ? { path: file.filename, line: finding.line, side: finding.side }
    // GitHub refuses a range whose start is not strictly before its end; an equal one is sent as one line.
    : { path: file.filename, line: finding.line, side: finding.side, start_line: finding.start_line, start_side: finding.side }
  const lines = finding.side === 'RIGHT' ? hunks[end]!.right : hunks[end]!.left
  const endLine = lines.get(finding.line)!
  return { kind: 'inline', position, lines: { start: lines.get(finding.start_line ?? finding.line) ?? endLine, end: endLine } }
}

function folded(reason: FoldReason): Placement {
  return { kind: 'folded', reason }
}
