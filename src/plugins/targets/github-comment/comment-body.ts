/**
 * The text `github_comment` posts: the agent's answer, within GitHub's limit, and in sticky mode framed by a
 * hidden marker that names the route (how the gateway finds its own comment again) and a footer the agent does
 * not write (the head it reviewed, when, and how many pushes it covered).
 */
import { inertMarkers, stickyMarker } from '../../shared/hidden-markers.js'
import { reviewFooter, type ReviewFooter } from '../../shared/review-footer.js'
import { EMPTY_ANSWER } from '../chat/chat-target.js'

/** GitHub refuses a comment body over 65,536 characters. */
export const GITHUB_COMMENT_LIMIT = 65_536

/**
 * A sticky comment: the route's marker, the answer (cut so the whole fits GitHub's limit, its own markers made
 * inert) and the footer. Only the first line is ever matched, so nothing the agent writes can pass for a marker.
 */
export function stickyBody(text: string, route: string, footer: ReviewFooter): string {
  const head = `${stickyMarker(route)}\n`
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
