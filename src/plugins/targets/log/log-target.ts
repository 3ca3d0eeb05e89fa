import type { DeliveryTarget } from '../../../core/types.js'

/**
 * The `log` delivery target: writes the agent's answer to the gateway's log as one line with the route and
 * delivery id. The default target, so a new route shows its answers without any platform set up.
 *
 * @example
 * ```ts
 * await logDelivery().deliver(answer, { signal, log, attempt: 1 })
 * // INFO agent answer route=pr delivery=72d3162e-... event=pull_request answer="..."
 * ```
 */
export function logDelivery(): DeliveryTarget {
  return {
    name: 'log',
    async deliver(answer, ctx) {
      ctx.log.info('agent answer', {
        route: answer.route,
        delivery: answer.deliveryId,
        event: answer.event,
        answer: answer.text,
      })
    },
  }
}
