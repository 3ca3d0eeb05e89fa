/**
 * The text of an anchored review: the body (the summary, the verdict, then every folded finding under its own
 * heading, with the reason it is not inline) and one comment per inline finding (a committable ```suggestion block
 * when it replaces lines of the new file). Each finding is rendered exactly once, in a comment or in the body;
 * the body fits the host's limit, shortening the folded findings' text (never dropping a finding) when it must.
 */
import type { AnchoredReview, CommentPosition, FoldReason } from './anchor.js'
import type { Finding, Side, Verdict } from './document.js'

/**
 * GitHub refuses a review body or comment over 65,536 characters. Characters are counted as code points (as the
 * review schema counts them, and as GitHub's Ruby does); an emoji is one.
 */
export const REVIEW_BODY_LIMIT = 65_536

/** One inline comment to post. */
export interface RenderedComment extends CommentPosition {
  /** Markdown. */
  readonly body: string
  /** The index of its finding in the review's findings. */
  readonly finding: number
}

/** The review as the host gets it. */
export interface RenderedReview {
  readonly body: string
  readonly comments: readonly RenderedComment[]
  /** The indexes of the findings folded into the body, in the body's order (the document's). */
  readonly folded: readonly number[]
}

/** The heading the folded findings are under. */
export const FOLDED_HEADING = '### Findings not on the diff'

const CUT_NOTE = '… *(shortened to fit the review)*'

/** Under the heading when a folded finding's text had to be shortened or left out. */
const SHORTENED_NOTE = "\n_Some findings' text is shortened to fit the code host's limit on a review's size; each is listed._"

const VERDICT_TEXT: Record<Verdict, string> = {
  approve: 'looks good to merge',
  comment: 'comments only',
  request_changes: 'changes requested',
}

/** Renders the review's body and comments; `limit` is the body's (default {@link REVIEW_BODY_LIMIT}). */
export function renderReview(anchored: AnchoredReview, limit = REVIEW_BODY_LIMIT): RenderedReview {
  const { review, placements } = anchored
  const comments: RenderedComment[] = []
  const folded: { index: number, header: string, details: string }[] = []
  review.findings.forEach((finding, index) => {
    const placement = placements[index]
    if (placement === undefined) throw new RangeError(`finding ${index} has no placement`)
    if (placement.kind === 'inline') comments.push({ ...placement.position, body: commentBody(finding), finding: index })
    else folded.push({ index, header: foldedHeader(finding, placement.reason, anchored.maxInline), details: foldedDetails(finding) })
  })

  const verdict = review.verdict === undefined ? '' : `\n\n**Verdict:** ${VERDICT_TEXT[review.verdict]}`
  const heading = folded.length === 0 ? '' : `\n\n${FOLDED_HEADING} (${folded.length})\n`
  // Every folded finding's header is kept whole: that is the finding, visible. What is left of the limit goes to
  // the summary first, then to the folded findings' bodies, the shortest served whole.
  const fixed = size(verdict) + size(heading) + (folded.length === 0 ? 0 : size(SHORTENED_NOTE)) + folded.reduce((sum, f) => sum + size(f.header) + 4, 0)
  const summaryText = review.summary.trim() === '' ? '_No summary._' : contained(review.summary.trimEnd())
  const summary = cut(summaryText, Math.max(0, limit - fixed))
  const details = share(folded.map((f) => f.details), limit - fixed - size(summary))
  const shortened = details.some((d, i) => d !== folded[i]!.details)
  const entries = folded.map((f, i) => `\n\n${f.header}${details[i] === '' ? '' : `\n\n${details[i]}`}`)
  const body = summary + verdict + heading + (shortened ? SHORTENED_NOTE : '') + entries.join('')
  return { body, comments, folded: folded.map((f) => f.index) }
}

/** An inline comment's body: severity and title, the body, and the suggestion (new side only). */
function commentBody(finding: Finding): string {
  const parts = [titleLine(finding), contained(finding.body.trim())]
  if (finding.suggestion !== undefined && finding.side === 'RIGHT') parts.push(fenced('suggestion', finding.suggestion))
  return parts.join('\n\n')
}

/** A folded finding's first lines: severity, place, title, and why it is not inline. */
function foldedHeader(finding: Finding, reason: FoldReason, maxInline: number): string {
  const lines = finding.start_line === undefined || finding.start_line === finding.line
    ? `line ${finding.line}`
    : `lines ${finding.start_line}–${finding.line}`
  const side = finding.side === 'RIGHT' ? 'new file' : 'old file'
  return `${titleLine(finding)}\n${code(finding.path)}, ${lines} (${side}) · _${reasonText(finding, reason, maxInline)}_`
}

/** A folded finding's text: its body and, as a plain block (it cannot be committed from the body), its suggestion. */
function foldedDetails(finding: Finding): string {
  const body = contained(finding.body.trim())
  return finding.suggestion === undefined ? body : `${body}\n\nSuggested replacement:\n\n${fenced('', finding.suggestion)}`
}

function titleLine(finding: Finding): string {
  const severity = `**${finding.severity}**`
  return finding.title === undefined ? severity : `${severity} · ${inline(finding.title)}`
}

function reasonText(finding: Finding, reason: FoldReason, maxInline: number): string {
  const sideName = (side: Side): string => (side === 'RIGHT' ? 'new' : 'old')
  switch (reason) {
    case 'file_not_in_diff': return 'the pull request does not change this file'
    case 'no_patch': return 'the diff of this file is not shown (binary, or too large)'
    case 'renamed_without_changes': return 'the file was renamed without changes: no line of it is in the diff'
    case 'unreadable_patch': return 'the diff of this file could not be read'
    case 'removed_file_right': return 'the file was removed: it has no new side'
    case 'added_file_left': return 'the file was added: it has no old side'
    case 'outside_hunks': return `not among the lines the diff shows on the ${sideName(finding.side)} side`
    case 'across_hunks': return 'the lines span more than one hunk of the diff'
    case 'over_cap': return `more findings than the ${maxInline} inline comments a review gets; the most severe went inline`
    case 'refused': return 'the code host refused it as an inline comment'
  }
}

/** A code span that holds any text: a fence longer than the longest run of backticks in it. */
function code(text: string): string {
  const fence = '`'.repeat(longestRun(text, '`') + 1)
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : ''
  return `${fence}${pad}${text}${pad}${fence}`
}

/** A title on one line (a newline would end the header). */
function inline(text: string): string {
  return text.replace(/\s+/g, ' ').trim()
}

/** A fenced block that holds any text: its fence is longer than any run of backticks inside. */
function fenced(info: string, text: string): string {
  const fence = '`'.repeat(Math.max(3, longestRun(text, '`') + 1))
  const content = text.endsWith('\n') ? text.slice(0, -1) : text
  return content === '' ? `${fence}${info}\n${fence}` : `${fence}${info}\n${content}\n${fence}`
}

function longestRun(text: string, char: string): number {
  let longest = 0
  let run = 0
  for (const c of text) {
    run = c === char ? run + 1 : 0
    longest = Math.max(longest, run)
  }
  return longest
}

/**
 * `text` cut to `max` characters (the cut note included) when longer. A cut text is closed (see
 * {@link contained}), so what follows it is not swallowed by a block it opened.
 */
function cut(text: string, max: number): string {
  if (size(text) <= max) return text
  const points = Array.from(text)
  let keep = max - size(CUT_NOTE) - 1
  while (keep > 0) {
    // Cut between code points: half a surrogate pair is not text a host stores.
    const shortened = `${contained(points.slice(0, keep).join('').trimEnd())}\n${CUT_NOTE}`
    if (size(shortened) <= max) return shortened
    keep -= size(shortened) - max
  }
  return ''
}

/**
 * Agent text made safe to put before other findings: a code fence it leaves open is closed, and an HTML comment it
 * opens and never closes is shown as text. Either would hide every finding rendered after it.
 */
export function contained(text: string): string {
  let out = text
  const opened = out.lastIndexOf('<!--')
  if (opened !== -1 && !out.includes('-->', opened)) out = `${out.slice(0, opened)}&lt;!--${out.slice(opened + 4)}`
  let open: { char: string, length: number } | undefined
  for (const line of out.split('\n')) {
    const fence = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(line)
    if (fence === null) continue
    const [, marks = '', rest = ''] = fence
    if (open === undefined) {
      // A backtick fence's info string cannot hold a backtick (CommonMark); such a line opens nothing.
      if (!(marks[0] === '`' && rest.includes('`'))) open = { char: marks[0]!, length: marks.length }
    } else if (marks[0] === open.char && marks.length >= open.length && rest.trim() === '') {
      open = undefined
    }
  }
  return open === undefined ? out : `${out}\n${open.char.repeat(open.length)}`
}

/**
 * The texts within `budget` characters in all (each rendered with two more, its separator): the shortest whole,
 * each longer one cut to an equal share of what is left.
 */
function share(texts: readonly string[], budget: number): string[] {
  const out = texts.map(() => '')
  let left = Math.max(0, budget)
  const order = texts.map((text, index) => ({ text, index, size: size(text) })).sort((a, b) => a.size - b.size)
  order.forEach(({ text, index, size: length }, position) => {
    const room = Math.floor(left / (order.length - position))
    out[index] = length + 2 <= room ? text : cut(text, room - 2)
    left -= out[index] === '' ? 0 : size(out[index]) + 2
  })
  return out
}

/** The length of `text` in code points. */
export function size(text: string): number {
  let count = 0
  for (const _ of text) count++
  return count
}
