import { describe, expect, it } from 'vitest'
import { logDelivery } from '../../src/plugins/targets/log/log-target.js'
import { deliveryTargetContract } from '../../src/testing/delivery-target.js'
import { deliveryContext } from '../../src/testing/context.js'

deliveryTargetContract('logDelivery', (log) => ({
  target: logDelivery(),
  delivered: () => log.lines.filter((l) => l.message === 'agent answer').map((l) => String(l.fields['answer'])),
}))

describe('logDelivery', () => {
  it('is the `log` target', () => {
    expect(logDelivery().name).toBe('log')
  })

  it('writes one info line with the route, delivery id, event and answer', async () => {
    const ctx = deliveryContext()
    await logDelivery().deliver(
      { route: 'pr', event: 'pull_request', deliveryId: 'd-1', text: 'LGTM', extra: { repo: 'o/r' } },
      ctx,
    )
    expect(ctx.log.lines).toEqual([
      {
        level: 'info',
        message: 'agent answer',
        fields: { route: 'pr', delivery: 'd-1', event: 'pull_request', answer: 'LGTM' },
      },
    ])
  })
})
