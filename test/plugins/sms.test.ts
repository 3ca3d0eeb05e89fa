import { HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import type { DeliveryError } from '../../src/core/errors.js'
import { smsDelivery } from '../../src/plugins/targets/sms/sms-target.js'
import { useChatApi, type ChatRequest } from '../fixtures/chat-api.js'
import { chatTargetSuite } from '../fixtures/chat-suite.js'
import { deliveryContext } from '../../src/testing/context.js'

const SID = 'AC0123456789abcdef0123456789abcdef'
const AUTH_TOKEN = 'twilio-auth-token-0123456789abcdef'
const FROM = '+15005550006'
const URL = `https://api.twilio.com/2010-04-01/Accounts/${SID}/Messages.json`
const api = useChatApi()
const form = (r: ChatRequest | undefined) => new URLSearchParams(r?.body ?? '')

chatTargetSuite(
  {
    name: 'sms',
    url: URL,
    limit: 1600,
    chatIds: ['+15551234567', '+15557654321'],
    secrets: [AUTH_TOKEN, Buffer.from(`${SID}:${AUTH_TOKEN}`).toString('base64')],
    make: (homeChannel) => smsDelivery({ accountSid: SID, authToken: AUTH_TOKEN, from: FROM, homeChannel }),
    chatOf: (r) => form(r).get('To') ?? '',
    textOf: (r) => form(r).get('Body') ?? '',
    ok: () => HttpResponse.json({ sid: 'SM1', status: 'queued' }, { status: 201 }),
    refused: () => HttpResponse.json({ code: 21211, message: "The 'To' number +1555 is not a valid phone number.", status: 400 }, { status: 400 }),
    throttled: (seconds) => () => HttpResponse.json({ code: 20429, message: 'Too Many Requests', status: 429 }, { status: 429, headers: { 'retry-after': String(seconds) } }),
  },
  api,
)

describe('smsDelivery', () => {
  const answer = { route: 'pr', event: 'pull_request', deliveryId: 'd-1', text: 'LGTM & done', extra: { chat_id: '+15551234567' } }

  it('posts a form with To, From and Body, authenticated with the account SID and auth token', async () => {
    api.serve(URL, () => HttpResponse.json({ sid: 'SM1' }, { status: 201 }))
    await smsDelivery({ accountSid: SID, authToken: AUTH_TOKEN, from: FROM }).deliver(answer, deliveryContext())
    const [request] = api.requests
    expect(request?.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/)
    expect(request?.headers['authorization']).toBe(`Basic ${Buffer.from(`${SID}:${AUTH_TOKEN}`).toString('base64')}`)
    expect(Object.fromEntries(form(request))).toEqual({ To: '+15551234567', From: FROM, Body: 'LGTM & done' })
  })

  it('names the Twilio error code and says what to check', async () => {
    api.serve(URL, () => HttpResponse.json({ code: 20003, message: 'Authenticate', status: 401 }, { status: 401 }))
    const error = (await smsDelivery({ accountSid: SID, authToken: AUTH_TOKEN, from: FROM }).deliver(answer, deliveryContext()).catch((e: unknown) => e)) as DeliveryError
    expect(error.message).toBe('sms: HTTP 401: Authenticate (Twilio error 20003) (the credentials were refused: check platforms.sms.auth_token)')
    expect(error.retryable).toBe(false)
  })

  it('needs the account SID, the auth token and the sender number', () => {
    expect(() => smsDelivery({ accountSid: SID, authToken: undefined, from: undefined })).toThrow(/platforms\.sms\.auth_token[\s\S]*platforms\.sms\.from/)
  })
})
