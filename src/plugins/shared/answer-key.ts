/** Keys that name one answer, stable across retries and restarts (Discord's nonce is built from them). */

/** The key of one answer on one route: a delivery id may reach several routes. */
export function answerKey(route: string, deliveryId: string): string {
  return `${route}\u0000${deliveryId}`
}
