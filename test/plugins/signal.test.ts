import { HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import type { DeliveryError } from '../../src/core/errors.js'
import { signalDelivery } from '../../src/plugins/targets/signal/signal-target.js'
import { jsonOf, useChatApi } from '../fixtures/chat-api.js'
import { chatTargetSuite } from '../fixtures/chat-suite.js'
import { issuePaths } from '../fixtures/config-issues.js'
import { deliveryContext } from '../../src/testing/context.js'

const API = 'http://127.0.0.1:8080'
const ACCOUNT = '+4915112345678'
const api = useChatApi()

chatTargetSuite(
  {
    name: 'signal',
    url: `${API}/v2/send`,
    limit: 2000,
    chatIds: ['+4915187654321', 'group.c2lnbmFsLWdyb3VwLWlk'],
    secrets: [],
    make: (homeChannel) => signalDelivery({ apiBase: API, account: ACCOUNT, homeChannel }),
    chatOf: (r) => String((jsonOf(r)['recipients'] as string[])[0]),
    textOf: (r) => String(jsonOf(r)['message']),
    ok: () => HttpResponse.json({ timestamp: '1700000000000' }, { status: 201 }),
    refused: () => HttpResponse.json({ error: 'Failed to send message: Unregistered user' }, { status: 400 }),
    throttled: (seconds) => () => HttpResponse.json({ error: 'rate limited' }, { status: 429, headers: { 'retry-after': String(seconds) } }),
  },
  api,
)

describe('signalDelivery', () => {
  it('posts /v2/send with the message, the account number and the recipient', async () => {
    api.serve(`${API}/v2/send`, () => HttpResponse.json({ timestamp: '1' }, { status: 201 }))
    await signalDelivery({ apiBase: `${API}/`, account: ACCOUNT }).deliver(
      { route: 'pr', event: 'pull_request', deliveryId: 'd-1', text: 'LGTM', extra: { chat_id: '+4915187654321' } },
      deliveryContext(),
    )
    expect(api.requests.map((r) => [r.url, r.headers['content-type'], jsonOf(r)])).toEqual([
      [`${API}/v2/send`, 'application/json', { message: 'LGTM', number: ACCOUNT, recipients: ['+4915187654321'] }],
    ])
  })

  it('explains a refusal', async () => {
    api.serve(`${API}/v2/send`, () => HttpResponse.json({ error: 'Failed to send message: Unregistered user' }, { status: 400 }))
    const error = (await signalDelivery({ apiBase: API, account: ACCOUNT })
      .deliver({ route: 'pr', event: 'e', deliveryId: 'd', text: 'x', extra: { chat_id: '+1' } }, deliveryContext())
      .catch((e: unknown) => e)) as DeliveryError
    expect(error.message).toBe('signal: HTTP 400: Failed to send message: Unregistered user (check the recipient and platforms.signal.account)')
  })

  it('has no public server: api_base and account are required', () => {
    expect(issuePaths(() => signalDelivery({ apiBase: undefined, account: undefined }))).toEqual(['platforms.signal.api_base', 'platforms.signal.account'])
  })
})
