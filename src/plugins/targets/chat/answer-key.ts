/** Keys that name one answer, stable across retries and restarts (Discord's nonce is built from them). */
import { createHash } from 'node:crypto'

/**
 * The key of one answer on one route: a delivery id may reach several routes, and one delivery may be answered
 * twice (an operator's retry of a done job runs the agent again): the text tells those answers apart, so a
 * platform that de-duplicates by this key (Discord's nonce) never drops a new answer for an old one.
 */
export function answerKey(route: string, deliveryId: string, text = ''): string {
  return `${route}\u0000${deliveryId}\u0000${createHash('sha256').update(text).digest('hex').slice(0, 16)}`
}
