/**
 * The text `github_comment` posts: the agent's answer, within GitHub's limit, and in sticky mode framed by a
 * hidden marker that names the route (how the gateway finds its own comment again) and a footer the agent does
 * not write (the head it reviewed, when, and how many pushes it covered).
 */
import { inertMarkers } from '../../shared/hidden-markers.js'
import { EMPTY_ANSWER } from '../chat/chat-target.js'

/** GitHub refuses a comment body over 65,536 characters. */
export const GITHUB_COMMENT_LIMIT = 65_536

/** What the footer of a sticky comment says. */
export interface ReviewFooter {
  /** The full head SHA the review is of; left out when the payload holds none (or not a SHA). */
  readonly head?: string | undefined
  /** When the review was posted, in ms since the epoch. */
  readonly at: number
  /** How many accepted events (pushes) the answer covers. */
  readonly covers: number
}

const SHA = /^[0-9a-f]{7,64}$/i

/**
 * The hidden first line of a sticky comment for `route`. The name is percent-encoded past letters, digits,
 * `.`, `_` and `-`, so no route name can end the HTML comment or look like another route's marker.
 */
export function reviewMarker(route: string): string {
  const name = route.replace(/[^A-Za-z0-9._-]/g, (c) => encodeURIComponent(c).replace(/[!'()*~]/g, (x) => `%${x.charCodeAt(0).toString(16).toUpperCase()}`))
  return `<!-- hookpilot:review route=${name} -->`
}

/** The footer line: `Review of abc1234 · 2026-11-24 13:05 UTC · covers 3 pushes`, in small type. */
export function reviewFooter({ head, at, covers }: ReviewFooter): string {
  const when = `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`
  const pushes = `covers ${covers} ${covers === 1 ? 'push' : 'pushes'}`
  const of = head !== undefined && SHA.test(head) ? `Review of ${head.slice(0, 7)} · ` : 'Review · '
  return `<sub>${of}${when} · ${pushes}</sub>`
}

/**
 * A sticky comment: the route's marker, the answer (cut so the whole fits GitHub's limit, its own markers made
 * inert) and the footer. Only the first line is ever matched, so nothing the agent writes can pass for a marker.
 */
export function stickyBody(text: string, route: string, footer: ReviewFooter): string {
  const head = `${reviewMarker(route)}\n`
  const tail = `\n\n---\n${reviewFooter(footer)}`
  return head + commentBody(text, head.length + tail.length) + tail
}

/**
 * The comment to post, in any mode: the answer with its hookpilot markers made inert (a route in `new` mode that
 * echoes another route's marker must not write a comment that route takes as its own); an empty answer becomes a
 * short note (GitHub refuses an empty body), a long one is cut so that it and `reserved` more characters fit
 * GitHub's limit, with a note saying so.
 */
export function commentBody(answer: string, reserved = 0): string {
  if (answer.trim() === '') return EMPTY_ANSWER
  const text = inertMarkers(answer)
  const limit = GITHUB_COMMENT_LIMIT - reserved
  if (text.length <= limit) return text
  const note = `\n\n… (cut: the answer was ${text.length.toLocaleString('en-US')} characters; GitHub comments hold at most 65,536)`
  let end = limit - note.length
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end -= 1 // never end on half of a surrogate pair
  return text.slice(0, end) + note
}
