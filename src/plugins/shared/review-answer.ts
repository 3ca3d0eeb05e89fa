/**
 * An agent's answer read as a review document for a code host's target, the same way for every host: a document
 * that does not validate fails the delivery with its issues (never retried, never posted raw), and the agent's
 * text has hookpilot's markers made inert before anything is rendered from it.
 */
import { DeliveryError } from '../../core/errors.js'
import { parseAnswer, type ReviewDocument } from '../../core/review/document.js'
import { inertMarkers } from './hidden-markers.js'

/** The answer as a review document; a DeliveryError of `target` (not retried) with its first issues when it does not validate. */
export function parseReviewAnswer(target: string, text: string): ReviewDocument {
  const parsed = parseAnswer(text)
  if (parsed.ok) return parsed.review
  const issues = parsed.issues.slice(0, 10).map((i) => (i.path === '' ? i.message : `${i.path}: ${i.message}`))
  const more = parsed.issues.length > 10 ? `; and ${parsed.issues.length - 10} more` : ''
  throw new DeliveryError(target, `the answer is not a valid review document, so nothing was posted: ${issues.join('; ')}${more}`, { retryable: false })
}

/** The review with hookpilot markers made inert in the agent's text (a suggestion is code, committed as written: left alone). */
export function inertReview(review: ReviewDocument): ReviewDocument {
  return {
    ...review,
    summary: inertMarkers(review.summary),
    findings: review.findings.map((f) => ({ ...f, body: inertMarkers(f.body), ...(f.title === undefined ? {} : { title: inertMarkers(f.title) }) })),
  }
}
