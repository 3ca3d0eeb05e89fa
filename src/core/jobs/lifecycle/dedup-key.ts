/**
 * The de-dup key of a delivery: its route and the sender's delivery id, joined by a NUL (neither holds one). The
 * pipeline and the non-HTTP intake store jobs under it, and `JobsView.find` looks a delivery's job up by it.
 */

/** The key a delivery of `route` with the sender's id `deliveryId` is de-duplicated on. */
export function dedupKeyOf(route: string, deliveryId: string): string {
  return `${route}\u0000${deliveryId}`
}
