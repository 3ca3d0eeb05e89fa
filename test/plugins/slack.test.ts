import { HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { DeliveryError } from '../../src/core/errors.js'
import { slackDelivery } from '../../src/plugins/targets/slack/slack-target.js'
import { jsonOf, useChatApi } from '../fixtures/chat-api.js'
import { chatTargetSuite } from '../fixtures/chat-suite.js'
import { deliveryContext } from '../../src/testing/context.js'
import { dispatchTo } from '../fixtures/dispatch.js'
import { DEFAULT_DELIVERY_RETRY } from '../../src/core/jobs/lifecycle/retry-schedule.js'

const TOKEN = 'xoxb-1234567890-0987654321-slackSecretTokenValue'
const URL = 'https://slack.com/api/chat.postMessage'
const api = useChatApi()

chatTargetSuite(
  {
    name: 'slack',
    url: URL,
    limit: 40_000,
    chatIds: ['C0123456789', 'C9876543210'],
    secrets: [TOKEN],
    make: (homeChannel) => slackDelivery({ token: TOKEN, homeChannel }),
    chatOf: (r) => String(jsonOf(r)['channel']),
    textOf: (r) => String(jsonOf(r)['text']),
    ok: () => HttpResponse.json({ ok: true, channel: 'C0123456789', ts: '1503435956.000247' }),
    // Slack says "no" with HTTP 200.
    refused: () => HttpResponse.json({ ok: false, error: 'channel_not_found' }),
    throttled: (seconds) => () => HttpResponse.json({ ok: false, error: 'ratelimited' }, { status: 429, headers: { 'retry-after': String(seconds) } }),
  },
  api,
)

describe('slackDelivery', () => {
  it('a 429 with Retry-After: 1 is tried again after 1 s, not the delivery schedule\'s first wait (3 minutes)', async () => {
    api.serve(URL, () => HttpResponse.json({ ok: true }))
    api.queue(() => HttpResponse.json({ ok: false, error: 'ratelimited' }, { status: 429, headers: { 'retry-after': '1' } }))
    const { sleeps, outcomes } = await dispatchTo(slackDelivery({ token: TOKEN }), 'hello', { chat_id: 'C1' }, {}, { retry: DEFAULT_DELIVERY_RETRY })
    expect(sleeps).toEqual([1000])
    expect(outcomes.map((o) => o.kind)).toEqual(['retry', 'done'])
  })


  const answer = (extra: Record<string, string>) => ({ route: 'pr', event: 'pull_request', deliveryId: 'd-1', text: 'LGTM', extra })
  const fail = async (extra: Record<string, string> = { chat_id: 'C1' }) =>
    (await slackDelivery({ token: TOKEN }).deliver(answer(extra), deliveryContext()).catch((e: unknown) => e)) as DeliveryError

  it('posts chat.postMessage with the bearer token, in a thread when the route gives thread_ts', async () => {
    api.serve(URL, () => HttpResponse.json({ ok: true }))
    await slackDelivery({ token: TOKEN }).deliver(answer({ chat_id: 'C1', thread_ts: '1503435956.000247' }), deliveryContext())
    const [request] = api.requests
    expect(request?.headers['authorization']).toBe(`Bearer ${TOKEN}`)
    expect(request?.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(jsonOf(request)).toEqual({ channel: 'C1', text: 'LGTM', thread_ts: '1503435956.000247' })
  })

  it.each([
    ['not_in_channel', 'slack: chat.postMessage failed: not_in_channel (invite the bot to the channel)'],
    ['invalid_auth', 'slack: chat.postMessage failed: invalid_auth (check platforms.slack.token)'],
    ['missing_scope', 'slack: chat.postMessage failed: missing_scope (the app needs the chat:write scope)'],
    ['msg_too_long', 'slack: chat.postMessage failed: msg_too_long'],
  ])('classifies HTTP 200 {ok:false, error:%j} as permanent', async (code, message) => {
    api.serve(URL, () => HttpResponse.json({ ok: false, error: code }))
    const error = await fail()
    expect(error.message).toBe(message)
    expect(error.retryable).toBe(false)
  })

  it('retries HTTP 200 {ok:false} errors that pass with time', async () => {
    api.serve(URL, () => HttpResponse.json({ ok: true }))
    api.queue(() => HttpResponse.json({ ok: false, error: 'internal_error' }), () => HttpResponse.json({ ok: false, error: 'service_unavailable' }))
    const { sleeps, log } = await dispatchTo(slackDelivery({ token: TOKEN }), 'LGTM', { chat_id: 'C1' })
    expect(sleeps).toEqual([1000, 2000])
    expect(log.lines.filter((l) => l.message === 'delivered')).toHaveLength(1)
  })

  it('treats a 200 that is not {ok:true} as a failure', async () => {
    api.serve(URL, () => new HttpResponse('<html>proxy</html>', { status: 200 }))
    expect((await fail()).message).toBe('slack: chat.postMessage failed: an answer that is not { ok: true }')
  })
})
