import { HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { DeliveryError } from '../../src/core/errors.js'
import { discordDelivery } from '../../src/plugins/targets/discord/discord-target.js'
import { jsonOf, useChatApi } from '../fixtures/chat-api.js'
import { chatTargetSuite } from '../fixtures/chat-suite.js'
import { deliveryContext } from '../../src/testing/context.js'

const TOKEN = 'MTA5ODc2NTQzMjEwOTg3NjU0Mw.GhIjKl.discord-bot-secret-token-value'
const CHANNEL = '1098765432109876543'
const HOME = '1234567890123456789'
const api = useChatApi()
const url = (channel: string) => `https://discord.com/api/v10/channels/${channel}/messages`

chatTargetSuite(
  {
    name: 'discord',
    url: 'https://discord.com/api/v10/channels/:channel/messages',
    limit: 2000,
    chatIds: [CHANNEL, HOME],
    secrets: [TOKEN],
    make: (homeChannel) => discordDelivery({ token: TOKEN, homeChannel }),
    chatOf: (r) => new URL(r.url).pathname.split('/')[4] ?? '',
    textOf: (r) => String(jsonOf(r)['content']),
    ok: () => HttpResponse.json({ id: '1', content: '...' }),
    refused: () => HttpResponse.json({ message: 'Unknown Channel', code: 10003 }, { status: 404 }),
    throttled: (seconds) => () =>
      HttpResponse.json(
        { message: 'You are being rate limited.', retry_after: seconds, global: false },
        { status: 429, headers: { 'retry-after': String(seconds) } },
      ),
  },
  api,
)

describe('discordDelivery', () => {
  const answer = (text: string, chatId = CHANNEL) => ({ route: 'pr', event: 'pull_request', deliveryId: 'd-1', text, extra: { chat_id: chatId } })

  it('posts the content with the bot token, mentions off and a nonce Discord enforces', async () => {
    api.serve(url(CHANNEL), () => HttpResponse.json({ id: '1' }))
    await discordDelivery({ token: TOKEN }).deliver(answer('ping @everyone'), deliveryContext())
    const [request] = api.requests
    expect(request?.url).toBe(url(CHANNEL))
    expect(request?.headers['authorization']).toBe(`Bot ${TOKEN}`)
    const body = jsonOf(request)
    expect(body).toEqual({ content: 'ping @everyone', nonce: expect.stringMatching(/^[0-9a-f]{25}$/), enforce_nonce: true, allowed_mentions: { parse: [] } })
  })

  it('sends the same nonce when a part is retried, and another for the next part', async () => {
    api.serve(url(CHANNEL), () => HttpResponse.json({ id: '1' }))
    api.queue(() => HttpResponse.json({}, { status: 502 }))
    const target = discordDelivery({ token: TOKEN })
    const ctx = deliveryContext()
    const text = `${'a'.repeat(1999)}\nb`
    await target.deliver(answer(text), ctx).catch(() => {})
    await target.deliver(answer(text), ctx)
    const nonces = api.requests.map((r) => jsonOf(r)['nonce'])
    expect(nonces).toHaveLength(3)
    expect(nonces[0]).toBe(nonces[1])
    expect(nonces[2]).not.toBe(nonces[1])
  })

  it('a new answer to the same delivery (an operator re-ran the job) gets a nonce of its own, so Discord posts it', async () => {
    api.serve(url(CHANNEL), () => HttpResponse.json({ id: '1' }))
    const target = discordDelivery({ token: TOKEN })
    await target.deliver(answer('first review'), deliveryContext())
    await target.deliver(answer('second review'), deliveryContext())
    const [first, second] = api.requests.map((r) => jsonOf(r)['nonce'])
    expect(first).not.toBe(second)
  })

  it.each(['../../guilds/1', '123/messages?x=', 'general', ''])('refuses the channel id %j without a request', async (chatId) => {
    api.serve(url(CHANNEL), () => HttpResponse.json({ id: '1' }))
    const error = await discordDelivery({ token: TOKEN, homeChannel: chatId === '' ? 'home' : undefined })
      .deliver(answer('x', chatId), deliveryContext())
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DeliveryError)
    expect((error as DeliveryError).retryable).toBe(false)
    expect(api.requests).toEqual([])
  })

  it('takes the wait from the body when the throttle has no Retry-After header', async () => {
    api.serve(url(CHANNEL), () => HttpResponse.json({ retry_after: 1.5 }, { status: 429 }))
    const error = await discordDelivery({ token: TOKEN }).deliver(answer('x'), deliveryContext()).catch((e: unknown) => e)
    expect(error).toMatchObject({ retryable: true, retryAfterMs: 1500 })
  })

  it('says what a 403 means', async () => {
    api.serve(url(CHANNEL), () => HttpResponse.json({ message: 'Missing Access', code: 50001 }, { status: 403 }))
    const error = (await discordDelivery({ token: TOKEN }).deliver(answer('x'), deliveryContext()).catch((e: unknown) => e)) as DeliveryError
    expect(error.message).toBe('discord: HTTP 403: Missing Access (not allowed: is the bot a member of the chat, with the right to post?)')
  })
})
