import { HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { DeliveryError } from '../../src/core/errors.js'
import { telegramDelivery } from '../../src/plugins/targets/telegram/telegram-target.js'
import { jsonOf, useChatApi } from '../fixtures/chat-api.js'
import { chatTargetSuite } from '../fixtures/chat-suite.js'
import { issuePaths } from '../fixtures/config-issues.js'
import { deliveryContext } from '../../src/testing/context.js'

const TOKEN = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'
const URL = `https://api.telegram.org/bot${TOKEN}/sendMessage`
const api = useChatApi()

chatTargetSuite(
  {
    name: 'telegram',
    url: URL,
    limit: 4096,
    chatIds: ['-1001234567890', '@hookpilot_home'],
    secrets: [TOKEN],
    make: (homeChannel) => telegramDelivery({ token: TOKEN, homeChannel }),
    chatOf: (r) => String(jsonOf(r)['chat_id']),
    textOf: (r) => String(jsonOf(r)['text']),
    ok: () => HttpResponse.json({ ok: true, result: { message_id: 1 } }),
    refused: () => HttpResponse.json({ ok: false, error_code: 400, description: 'Bad Request: chat not found' }, { status: 400 }),
    throttled: (seconds) => () =>
      HttpResponse.json(
        { ok: false, error_code: 429, description: `Too Many Requests: retry after ${seconds}`, parameters: { retry_after: seconds } },
        { status: 429, headers: { 'retry-after': String(seconds) } },
      ),
  },
  api,
)

describe('telegramDelivery', () => {
  const answer = (extra: Record<string, string>) => ({ route: 'pr', event: 'pull_request', deliveryId: 'd-1', text: '*not* <b>markup</b>', extra })

  it('posts sendMessage as plain JSON text, with the thread id when the route gives one', async () => {
    api.serve(URL, () => HttpResponse.json({ ok: true, result: {} }))
    await telegramDelivery({ token: TOKEN }).deliver(answer({ chat_id: '-100123', message_thread_id: '42' }), deliveryContext())
    const [request] = api.requests
    expect(request?.url).toBe(URL)
    expect(request?.headers['content-type']).toBe('application/json')
    expect(jsonOf(request)).toEqual({
      chat_id: '-100123', text: '*not* <b>markup</b>', message_thread_id: 42, link_preview_options: { is_disabled: true },
    })
  })

  it('takes the wait from the body when the throttle has no Retry-After header', async () => {
    api.serve(URL, () => HttpResponse.json({ ok: false, error_code: 429, parameters: { retry_after: 3 } }, { status: 429 }))
    const error = await telegramDelivery({ token: TOKEN }).deliver(answer({ chat_id: '1' }), deliveryContext()).catch((e: unknown) => e)
    expect(error).toMatchObject({ retryable: true, retryAfterMs: 3000 })
  })

  it('refuses a thread id that is not a number without a request', async () => {
    const error = await telegramDelivery({ token: TOKEN }).deliver(answer({ chat_id: '1', message_thread_id: '../x' }), deliveryContext()).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(DeliveryError)
    expect(api.requests).toEqual([])
  })

  it('says the token was refused on 401, without showing it', async () => {
    api.serve(URL, () => HttpResponse.json({ ok: false, error_code: 401, description: 'Unauthorized' }, { status: 401 }))
    const error = (await telegramDelivery({ token: TOKEN }).deliver(answer({ chat_id: '1' }), deliveryContext()).catch((e: unknown) => e)) as DeliveryError
    expect(error.message).toBe('telegram: HTTP 401: Unauthorized (the credentials were refused: check platforms.telegram.token)')
    expect(error.retryable).toBe(false)
  })

  it('keeps the token out of a timeout error and its cause', async () => {
    api.serve(URL, async () => {
      await new Promise((resolve) => setTimeout(resolve, 500))
      return HttpResponse.json({ ok: true })
    })
    const error = (await telegramDelivery({ token: TOKEN, timeoutMs: 50 }).deliver(answer({ chat_id: '1' }), deliveryContext()).catch((e: unknown) => e)) as DeliveryError
    expect(error.message).toBe('telegram: no answer in time from api.telegram.org (not retried: the message may have been posted)')
    // A timeout is ambiguous (the message may be posted already): never posting twice wins over retrying.
    expect(error.retryable).toBe(false)
    const chain = JSON.stringify([String(error.cause), String((error.cause as Error).cause)])
    expect(chain).not.toContain(TOKEN)
    expect(chain).not.toContain(TOKEN.split(':')[1])
  })

  it('uses api_base for a self-hosted Bot API server', async () => {
    api.serve(`http://127.0.0.1:8081/bot${TOKEN}/sendMessage`, () => HttpResponse.json({ ok: true }))
    await telegramDelivery({ token: TOKEN, apiBase: 'http://127.0.0.1:8081/' }).deliver(answer({ chat_id: '1' }), deliveryContext())
    expect(api.requests).toHaveLength(1)
  })

  it('refuses to start without a token or with a bad api_base', () => {
    expect(issuePaths(() => telegramDelivery({ token: '', apiBase: 'ftp://x' }))).toEqual(['platforms.telegram.token', 'platforms.telegram.api_base'])
  })
})
