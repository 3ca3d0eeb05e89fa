/**
 * Programs the gateway runs inherit its environment, less its own secrets: an agent talked into printing its
 * environment cannot leak the webhook secret or a chat token.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createGateway, parseConfig, silentLogger, type AgentAnswer } from '../../src/index.js'
import { asPlugin } from '../fixtures/gateway.js'
import { createSecretSet } from '../../src/core/secrets/secret-set.js'
import { createScope } from '../../src/core/gateway/container.js'
import { setupPlugins } from '../../src/core/plugin-api/setup.js'
import { BUILTIN_PLUGINS } from '../../src/plugins/builtins.js'
import { githubHeaders } from '../fixtures/github.js'

const SECRET = 'route-secret-from-env-123'
const TOKEN = '123456:telegram-token-from-env'

afterEach(() => {
  delete process.env['HP_TEST_ROUTE_SECRET']
  delete process.env['HP_TEST_TG_TOKEN']
  delete process.env['HP_TEST_OTHER']
})

describe('child environment', () => {
  it('lists every secret of the configuration', async () => {
    const config = parseConfig({
      agent: { runner: 'openai', base_url: 'http://127.0.0.1:1/v1', api_key: 'sk-model', model: 'm' },
      platforms: {
        webhook: { extra: { secret: ['g1', 'g2'], routes: { a: { secret: 'ra' }, b: {} } } },
        telegram: { enabled: true, token: 'tg', home_channel: '1' },
        sms: { enabled: false, auth_token: 'twilio' },
      },
    }, { env: {} })
    // Every plugin declares its secret options; a disabled platform's credentials count too.
    const { secrets } = await setupPlugins(config, BUILTIN_PLUGINS, { clock: Date.now, baseDir: '.', resources: createScope().resources, log: silentLogger, childEnv: () => ({}), workdir: '.', redact: (t: string) => t })
    expect(secrets.sort()).toEqual(['g1', 'g2', 'ra', 'sk-model', 'tg', 'twilio'].sort())
  })

  it('drops variables holding a secret and keeps the rest', () => {
    const secrets = createSecretSet({ env: { A: 's3cret', B: 'keep', PATH: '/bin' } })
    secrets.set('config', ['s3cret'])
    expect(secrets.childEnv()).toEqual({ B: 'keep', PATH: '/bin' })
  })

  it('the command agent does not see the route secret or a chat token, but sees other variables', async () => {
    process.env['HP_TEST_ROUTE_SECRET'] = SECRET
    process.env['HP_TEST_TG_TOKEN'] = TOKEN
    process.env['HP_TEST_OTHER'] = 'visible'
    const answers: AgentAnswer[] = []
    const stateDir = mkdtempSync(join(tmpdir(), 'hookpilot-child-env-'))
    const script = "const e = process.env; process.stdout.write([e.HP_TEST_ROUTE_SECRET ?? 'absent', e.HP_TEST_TG_TOKEN ?? 'absent', e.HP_TEST_OTHER].join(' '))"
    const gateway = await createGateway(
      {
        agent: { runner: 'command', command: [process.execPath, '-e', script] },
        platforms: {
          webhook: { extra: { host: '127.0.0.1', routes: { pr: { secret: '${HP_TEST_ROUTE_SECRET}', deliver: 'capture' } } } },
          telegram: { enabled: true, token: '${HP_TEST_TG_TOKEN}', home_channel: '1' },
        },
      },
      [asPlugin({ name: 'quiet', logger: silentLogger }), asPlugin({ name: 'capture', deliveryTargets: [{ name: 'capture', deliver: async (a) => void answers.push(a) }] })],
      // Its SQLite state in a folder of its own, not the repository's .hookpilot/ that other test files share.
      { baseDir: stateDir },
    )
    try {
      const body = Buffer.from('{"action":"opened"}')
      expect((await gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET), body })).status).toBe(202)
      await expect.poll(() => answers.length, { timeout: 10_000 }).toBe(1)
      expect(answers[0]?.text).toBe('absent absent visible')
    } finally {
      await gateway.close()
      rmSync(stateDir, { recursive: true, force: true })
    }
  })
})
