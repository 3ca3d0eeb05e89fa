/**
 * The contract every {@link DeliveryTarget} honours, run by each implementation's own test file. The target is
 * wrapped in a harness that knows how to observe its destination (a log, a local HTTP server, a fake `gh`).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { GatewayError } from '../core/errors.js'
import type { AgentAnswer, DeliveryTarget } from '../core/types.js'
import { deliveryContext, type RecordingLogger } from './context.js'

/** A target together with a view of where its answers land. */
export interface DeliveryHarness {
  readonly target: DeliveryTarget
  /** The `deliver_extra` a route using this target would have (chat id, repo, ...). */
  readonly extra?: Readonly<Record<string, string>>
  /** The texts the destination received so far, in order. */
  delivered(): readonly string[] | Promise<readonly string[]>
  /**
   * Makes the destination fail from now on; `deliver` must then reject with a DeliveryError. Give it, and pass
   * `{ breakable: true }`, for the failure case to be registered: without it that case does not apply.
   */
  breakDestination?(): void | Promise<void>
  /**
   * Credentials that must never appear in an error or a log line: every delivery's log, and the failure's error
   * and log, are checked for each. A target with no credentials (the log target) gives none: it has none to leak.
   */
  readonly secrets?: readonly string[]
  close?(): void | Promise<void>
}

/** Options of {@link deliveryTargetContract}. */
export interface DeliveryContractOptions {
  /** The harness can make its destination fail (`breakDestination`): registers the failure case. */
  readonly breakable?: boolean | undefined
}

/**
 * Runs the delivery-target contract; `make(log)` builds a fresh harness per test around the logger that the
 * target's context carries. Every case it registers checks something: the failure case only with
 * `{ breakable: true }` (a destination the harness cannot break has no failure to check; it does not apply),
 * and the secrets in the cases that deliver, for each secret the harness gives.
 */
export function deliveryTargetContract(
  name: string,
  make: (log: RecordingLogger) => DeliveryHarness | Promise<DeliveryHarness>,
  options: DeliveryContractOptions = {},
): void {
  describe(`${name} (DeliveryTarget contract)`, () => {
    let harness: DeliveryHarness | undefined
    afterEach(async () => {
      await harness?.close?.()
      harness = undefined
    })

    const setup = async () => {
      const ctx = deliveryContext()
      harness = await make(ctx.log)
      const h = harness
      const answer = (text: string): AgentAnswer => ({
        route: 'github-pr-review',
        event: 'pull_request',
        deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958',
        text,
        extra: h.extra ?? {},
      })
      return { ctx, harness: h, answer }
    }

    it('has a name, and aliases that are names too', async () => {
      const { harness } = await setup()
      expect(harness.target.name).toMatch(/^[a-z0-9_-]+$/)
      for (const alias of harness.target.aliases ?? []) expect(alias).toMatch(/^[a-z0-9_-]+$/)
    })

    it('delivers the answer text once, as it is, and writes none of the harness\'s secrets to the log', async () => {
      const { ctx, harness, answer } = await setup()
      const text = 'Looks good 👍\n\n- `src/a.ts`: a <b>bold</b> & "quoted" claim; ünïcödé'
      await harness.target.deliver(answer(text), ctx)
      expect(await harness.delivered()).toEqual([text])
      for (const secret of harness.secrets ?? []) expect(ctx.log.text()).not.toContain(secret)
    })

    it('delivers an empty answer and a bare SKIP (the gateway decides what is silent, not the target)', async () => {
      const { ctx, harness, answer } = await setup()
      await harness.target.deliver(answer('SKIP'), ctx)
      await harness.target.deliver(answer(''), ctx)
      const delivered = await harness.delivered()
      expect(delivered).toHaveLength(2)
      expect(delivered[0]).toBe('SKIP')
      for (const secret of harness.secrets ?? []) expect(ctx.log.text()).not.toContain(secret)
    })

    // A destination the harness cannot break has no failure to check: the case does not apply.
    if (options.breakable !== true) return
    it('fails with a DeliveryError that names the target and no secret', async () => {
      const { ctx, harness, answer } = await setup()
      expect(harness.breakDestination).toBeTypeOf('function')
      await harness.breakDestination?.()
      const error: unknown = await harness.target.deliver(answer('hello'), ctx).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(GatewayError.is(error) && error.code === 'ERR_DELIVERY').toBe(true)
      expect(String((error as Error).message)).toContain(harness.target.name)
      for (const secret of harness.secrets ?? []) {
        expect(String((error as Error).message)).not.toContain(secret)
        expect(ctx.log.text()).not.toContain(secret)
      }
    })
  })
}
