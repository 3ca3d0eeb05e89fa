/**
 * The hidden lines by which the GitLab target finds what it wrote: the sticky note of a route (its first line, as
 * GitHub's sticky comment), the head that note reviews (its second line), the route's policy notice (its first
 * line), and each finding's discussion (its first line names the route, the head, the finding's index in the
 * answer and its key, the review memory's findingKey). Only lines the gateway wrote in those places count, and
 * only in notes by the token's own user; the agent's text has every `<!-- hookpilot:` made inert before it is
 * written, and a line of it that GitLab would run as a quick action (`/approve`, `/merge`) is shown instead of run.
 */
import { markerRoute } from '../../shared/hidden-markers.js'


/**
 * The first line of the route's policy notice (why a merge request got no review): a note of its own beside the
 * review's, found the same way.
 */
export function noticeMarker(route: string): string {
  return `<!-- hookpilot:notice route=${markerRoute(route)} -->`
}

/** The sticky note's second line: the head it reviews and the delivery that wrote it. */
export function reviewedLine(head: string, delivery: string): string {
  return `<!-- hookpilot:reviewed head=${head.toLowerCase()} delivery=${markerRoute(delivery)} -->`
}

/** What a note's second line says, when it is a {@link reviewedLine}. */
export function parseReviewedLine(line: string | undefined): { readonly head: string, readonly delivery: string } | undefined {
  const match = /^<!-- hookpilot:reviewed head=([0-9a-f]{7,64}) delivery=([A-Za-z0-9._%-]*) -->$/.exec(line ?? '')
  return match === null ? undefined : { head: match[1]!, delivery: match[2]! }
}

/** Whether `delivery` is the one a {@link reviewedLine} names. */
export function sameDelivery(recorded: string, delivery: string): boolean {
  return recorded === markerRoute(delivery)
}

/** A finding's discussion's first line. */
export function findingMarker(route: string, head: string, index: number, fingerprint: string): string {
  return `<!-- hookpilot:finding route=${markerRoute(route)} head=${head.toLowerCase()} n=${index} fp=${fingerprint} -->`
}

/** What a discussion's first line says, when it is a {@link findingMarker}. */
export interface FindingMark {
  readonly route: string
  readonly head: string
  readonly index: number
  readonly fingerprint: string
}

/** Reads a {@link findingMarker} line (`route` as the marker writes it). */
export function parseFindingMarker(line: string | undefined): FindingMark | undefined {
  const match = /^<!-- hookpilot:finding route=([A-Za-z0-9._%-]+) head=([0-9a-f]{7,64}) n=(\d+) fp=([0-9a-f]{16}) -->$/.exec(line ?? '')
  return match === null ? undefined : { route: match[1]!, head: match[2]!, index: Number(match[3]), fingerprint: match[4]! }
}

/**
 * Text with no line GitLab would run as a quick action: outside code blocks (where GitLab runs none), a line that
 * starts with `/` gets it as `&#47;`, which Markdown shows as `/`.
 */
export function withoutQuickActions(text: string): string {
  let fence: string | undefined
  return text.split('\n').map((line) => {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line)
    if (opener !== null) {
      const marks = opener[1]!
      if (fence === undefined) fence = marks
      else if (marks[0] === fence[0] && marks.length >= fence.length && line.trim() === marks) fence = undefined
      return line
    }
    return fence === undefined ? line.replace(/^(\s*)\//, '$1&#47;') : line
  }).join('\n')
}
