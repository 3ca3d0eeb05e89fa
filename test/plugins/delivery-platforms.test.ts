/**
 * The built-in targets as a configuration chooses them: github_comment always, a chat platform only when
 * enabled (a route naming another fails at startup), the platform-neutral names end to end, and silent_outputs.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HttpResponse } from 'msw'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createGateway, type Gateway, type HookpilotConfigInput } from '../../src/index.js'
import { asPlugin } from '../fixtures/gateway.js'
import { ConfigError } from '../../src/core/errors.js'
import type { GatewayPlugin } from '../../src/core/plugin-api/gateway-plugin.js'
import { jsonOf, useChatApi } from '../fixtures/chat-api.js'
import { recordingLogger } from '../../src/testing/context.js'
import { installFakeGh, type FakeGh } from '../fixtures/fake-gh.js'
import { githubHeaders, githubPayload } from '../fixtures/github.js'

const SECRET = 'platforms-test-secret'
const api = useChatApi()
type Platforms = NonNullable<HookpilotConfigInput['platforms']>
type Routes = NonNullable<NonNullable<NonNullable<Platforms['webhook']>['extra']>['routes']>

const ENABLED: Platforms = {
  telegram: { enabled: true, token: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw' },
  discord: { enabled: true, token: 'discord-token' },
  slack: { enabled: true, token: 'xoxb-slack-token' },
  signal: { enabled: true, api_base: 'http://127.0.0.1:8080', account: '+4915112345678' },
  sms: { enabled: true, account_sid: 'AC123', auth_token: 'twilio-token', from: '+15005550006' },
}

describe('built-in delivery targets from the configuration', () => {
  const log = recordingLogger()
  let gateway: Gateway | undefined
  // The gateways' SQLite state in a folder of their own, not the repository's .hookpilot/ that other test files share.
  let stateDir = ''
  beforeAll(() => void (stateDir = mkdtempSync(join(tmpdir(), 'hookpilot-platforms-'))))
  afterAll(() => rmSync(stateDir, { recursive: true, force: true }))
  let gh: FakeGh | undefined
  afterEach(async () => {
    await gateway?.close()
    gh?.remove()
    gateway = undefined
    gh = undefined
    log.lines.length = 0
  })

  const plugin = (answer: string): GatewayPlugin => ({
    name: 'test',
    logger: log,
    agentRunner: { name: 'fixed', run: async () => ({ ok: true, text: answer }) },
  })
  const start = async (routes: Routes, platforms: Platforms = {}, answer = 'Looks good.') => {
    const config: HookpilotConfigInput = {
      agent: { runner: 'fixed' },
      platforms: { ...platforms, webhook: { extra: { host: '127.0.0.1', secret: SECRET, routes } } },
    }
    gateway = await createGateway(config, [asPlugin(plugin(answer))], { baseDir: stateDir })
    return gateway
  }
  const startupError = async (routes: Routes, platforms: Platforms = {}): Promise<ConfigError> => {
    const error: unknown = await start(routes, platforms).then(() => undefined, (e: unknown) => e)
    expect(error).toBeInstanceOf(ConfigError)
    return error as ConfigError
  }
  const post = async (route: string) => {
    const body = githubPayload('pull_request', 'opened')
    const res = await gateway!.handle({ method: 'POST', path: `/webhooks/${route}`, headers: githubHeaders('pull_request', body, SECRET), body })
    expect(res.status).toBe(202)
  }

  it.each(['telegram', 'discord', 'slack', 'signal', 'sms', 'messenger_1', 'messenger_4'])(
    'refuses to start when a route delivers to %s and the platform is not enabled',
    async (deliver) => {
      const error = await startupError({ alerts: { deliver, deliver_extra: { chat_id: '1' } } }, { telegram: { enabled: false, token: 't' } })
      const platform = { messenger_1: 'telegram', messenger_4: 'signal' }[deliver] ?? deliver
      expect(error.issues).toEqual([
        {
          path: 'platforms.webhook.extra.routes.alerts.deliver',
          message: `route "alerts" delivers to ${deliver}, but platforms.${platform} is not enabled: set platforms.${platform}.enabled: true and its credentials`,
        },
      ])
    },
  )

  it('refuses to start when a route has neither a chat_id nor a home channel, naming route and platform', async () => {
    const error = await startupError({ alerts: { deliver: 'slack' } }, { slack: { enabled: true, token: 'xoxb-1' } })
    expect(error.issues).toEqual([
      {
        path: 'platforms.webhook.extra.routes.alerts.deliver',
        message: 'route "alerts" delivers to slack, but has no chat: set deliver_extra.chat_id on the route or platforms.slack.home_channel',
      },
    ])
    await expect(start({ alerts: { deliver: 'slack' } }, { slack: { enabled: true, token: 'xoxb-1', home_channel: 'C1' } })).resolves.toBeDefined()
  })

  it('reports every enabled platform missing its credentials at once', async () => {
    const error = await startupError({}, { telegram: { enabled: true }, signal: { enabled: true }, sms: { enabled: true, account_sid: 'AC1' } })
    expect(error.issues.map((i) => i.path)).toEqual([
      'platforms.telegram.token', 'platforms.signal.api_base', 'platforms.signal.account', 'platforms.sms.auth_token', 'platforms.sms.from',
    ])
  })

  it('offers github_comment without any platform block, and checks its deliver_extra', async () => {
    const error = await startupError({ pr: { deliver: 'codehost_comment' } })
    expect(error.issues[0]?.message).toMatch(/^route "pr" delivers to github_comment, which needs deliver_extra\.repo/)
  })

  it('delivers through the platform-neutral names: codehost_comment and messenger_1..4', async () => {
    gh = installFakeGh()
    for (const path of ['https://api.telegram.org/:bot/sendMessage', 'https://discord.com/api/v10/channels/:id/messages', 'https://slack.com/api/chat.postMessage']) {
      api.serve(path, () => HttpResponse.json({ ok: true }))
    }
    api.serve('http://127.0.0.1:8080/v2/send', () => HttpResponse.json({ timestamp: '1' }, { status: 201 }))
    const routes: Routes = {
      code: { deliver: 'codehost_comment', deliver_extra: { repo: '{repository.full_name}', pr_number: '{number}' } },
      m1: { deliver: 'messenger_1', deliver_extra: { chat_id: '-1001234567890' } },
      m2: { deliver: 'messenger_2', deliver_extra: { chat_id: '1098765432109876543' } },
      m3: { deliver: 'messenger_3', deliver_extra: { chat_id: 'C0123456789' } },
      m4: { deliver: 'messenger_4', deliver_extra: { chat_id: '+4915187654321' } },
    }
    await start(routes, { ...ENABLED, github: { gh_path: gh.path } })
    for (const route of Object.keys(routes)) await post(route)
    await vi.waitFor(() => expect(log.lines.filter((l) => l.message === 'delivered')).toHaveLength(5), { timeout: 10_000 })
    expect(gh.calls()).toEqual([
      { argv: ['pr', 'comment', '2', '--repo', 'Codertocat/Hello-World', '--body-file', '-'], stdin: 'Looks good.' },
    ])
    const seen = api.requests.map((r) => [new URL(r.url).host, jsonOf(r)['text'] ?? jsonOf(r)['content'] ?? jsonOf(r)['message']])
    expect(seen.sort()).toEqual([
      ['127.0.0.1:8080', 'Looks good.'], ['api.telegram.org', 'Looks good.'], ['discord.com', 'Looks good.'], ['slack.com', 'Looks good.'],
    ])
    expect(log.lines.filter((l) => l.message === 'delivered').map((l) => l.fields['target']).sort()).toEqual(
      ['discord', 'github_comment', 'signal', 'slack', 'telegram'],
    )
  })

  it('silent_outputs turns "SKIP is still delivered" off for its route only', async () => {
    api.serve('https://slack.com/api/chat.postMessage', () => HttpResponse.json({ ok: true }))
    const routes: Routes = {
      quiet: { deliver: 'slack', deliver_extra: { chat_id: 'C-QUIET' }, silent_outputs: ['SKIP'] },
      loud: { deliver: 'slack', deliver_extra: { chat_id: 'C-LOUD' } },
    }
    await start(routes, { slack: ENABLED.slack }, 'SKIP\n')
    await post('quiet')
    await post('loud')
    await vi.waitFor(() => {
      expect(log.lines.filter((l) => l.message === 'delivered')).toHaveLength(1)
      expect(log.lines.filter((l) => l.message === 'silent output: nothing delivered')).toHaveLength(1)
    })
    expect(api.requests.map((r) => jsonOf(r))).toEqual([{ channel: 'C-LOUD', text: 'SKIP\n' }])
    expect(log.lines.find((l) => l.message === 'silent output: nothing delivered')?.fields['route']).toBe('quiet')
  })
})
