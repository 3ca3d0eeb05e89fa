/**
 * The one composition root: the logger and the clock a plugin provides reach every plugin and the state
 * backend, and importing the package alone leaves the global Reflect untouched.
 */
import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { ConfigError, createGateway, DeliveryError, definePlugin, type GatewayPlugin } from '../../src/index.js'
import { fakeClock } from '../../src/testing/clock.js'
import { recordingLogger } from '../../src/testing/context.js'
import { githubHeaders, githubPayload } from '../fixtures/github.js'
import { SECRET, asPlugin } from '../fixtures/gateway.js'

const body = githubPayload('pull_request', 'opened')
const config = {
  agent: { runner: 'echo' },
  state: { driver: 'memory' },
  platforms: { webhook: { extra: { host: '127.0.0.1', port: 0, routes: { pr: { secret: SECRET, events: ['pull_request'], prompt: 'PR {number}', deliver: 'flaky' } } } } },
}

describe('one composition root', () => {
  it('createGateway reports what only composing finds in the same error as what the schema finds (issue 25, item 3)', async () => {
    const bad = { ...config, log_level: 'verbose', state: { driver: 'memroy' }, platforms: { webhook: { extra: { ...config.platforms.webhook.extra, routes: { pr: { ...config.platforms.webhook.extra.routes.pr, deliver: 'lgo' } } } } } }
    // Wrong on purpose, so past what the config's type allows.
    const error: unknown = await createGateway(bad as unknown as Parameters<typeof createGateway>[0]).then(() => undefined, (e: unknown) => e)
    expect(ConfigError.is(error)).toBe(true)
    expect((error as ConfigError).issues.map((i) => i.path)).toEqual(['log_level', 'platforms.webhook.extra.routes.pr.deliver', 'state.driver'])
    expect((error as ConfigError).message).toContain('(did you mean "memory"?)')
  })

  it('a logger set up by a plugin definition receives the lines of the gateway and of the other plugins', async () => {
    const log = recordingLogger()
    const logging = definePlugin({ name: 'my-logs', setup: () => ({ name: 'my-logs', logger: log }) })
    const saw: string[] = []
    const target = definePlugin({
      name: 'flaky',
      setup: (_options, ctx) => ({
        name: 'flaky',
        deliveryTargets: [{ name: 'flaky', deliver: async (answer) => void ctx.log.info('plugin line', { text: answer.text }) }],
      }),
    })
    const gateway = await createGateway(config, [target, logging])
    try {
      const sent = await gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET, 'd-log'), body })
      expect(sent.status).toBe(202)
      await expect.poll(() => log.lines.map((l) => l.message)).toContain('plugin line')
      saw.push(...log.lines.map((l) => l.message))
      expect(saw).toContain('accepted') // the gateway's own line, through the plugin's logger
    } finally {
      await gateway.close()
    }
  })

  it('a fake clock from a plugin reaches the state backend: a delivery retry due in 1 s runs once the clock moves 1 s', async () => {
    const clock = fakeClock()
    let tries = 0
    const flaky: GatewayPlugin = {
      name: 'flaky',
      clock: clock.now,
      logger: recordingLogger(),
      deliveryTargets: [{
        name: 'flaky',
        async deliver() {
          tries++
          if (tries === 1) throw new DeliveryError('flaky', 'busy', { retryable: true, retryAfterMs: 1_000 })
        },
      }],
    }
    // The target's Retry-After of 1 s decides the wait (the schedule's first wait, 1 s ±20 %, is not used).
    const gateway = await createGateway({ ...config, delivery: { retry: { first_delay_seconds: 1 } } }, [asPlugin(flaky)])
    try {
      await gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET, 'd-clock'), body })
      await expect.poll(() => tries).toBe(1)
      // Real time passes, the fake clock does not: the retry waits for the clock the gateway was given.
      await new Promise((resolve) => setTimeout(resolve, 1_200))
      expect(tries).toBe(1)
      clock.advance(1_200)
      await expect.poll(() => tries, { timeout: 3_000 }).toBe(2)
    } finally {
      await gateway.close()
    }
  })

  it('importing the package does not patch the global Reflect; composing a gateway loads the container', () => {
    const script = `
      const before = typeof Reflect.getMetadata
      const { createGateway } = await import(${JSON.stringify(new URL('../../dist/index.js', import.meta.url).href)})
      const afterImport = typeof Reflect.getMetadata
      const gateway = await createGateway({ state: { driver: 'memory' }, platforms: { webhook: { extra: { routes: {} } } } })
      await gateway.close()
      console.log(JSON.stringify([before, afterImport, typeof Reflect.getMetadata]))`
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })
    expect(JSON.parse(out.trim().split('\n').at(-1) ?? '[]')).toEqual(['undefined', 'undefined', 'function'])
  })
})
