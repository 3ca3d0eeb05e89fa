import type { DeliveryTarget } from '../../core/types.js'
import { baseUrl, createChatClient, field, httpFailure, send, statusHint, textField, type ChatHttpOptions } from '../shared/chat-http.js'
import { chatTarget, requireOptions } from '../shared/chat-target.js'

/** Options of {@link smsDelivery} (`platforms.sms`, Twilio). */
export interface SmsOptions extends ChatHttpOptions {
  /** The Twilio account SID, `AC...` (`platforms.sms.account_sid`). */
  readonly accountSid: string | undefined
  /** The Twilio auth token (`platforms.sms.auth_token`). */
  readonly authToken: string | undefined
  /** The Twilio number messages are sent from, E.164 (`platforms.sms.from`). */
  readonly from: string | undefined
  /** The phone number used when a route gives no `deliver_extra.chat_id`. */
  readonly homeChannel?: string | undefined
  /** Twilio's API. Defaults to `https://api.twilio.com`. */
  readonly apiBase?: string | undefined
}

/** Twilio refuses a message body over 1,600 characters. */
export const SMS_LIMIT = 1600

/**
 * The `sms` delivery target: Twilio's Messages API (`POST /2010-04-01/Accounts/{sid}/Messages.json`, form
 * encoded, HTTP basic auth with the account SID and auth token), split at 1,600 characters.
 * `deliver_extra`: `chat_id` (the phone number, else the home channel).
 *
 * @example
 * ```ts
 * const target = smsDelivery({ accountSid: 'AC...', authToken: process.env.TWILIO_AUTH_TOKEN, from: '+15005550006' })
 * ```
 */
export function smsDelivery(options: SmsOptions): DeliveryTarget {
  const apiBase = options.apiBase ?? 'https://api.twilio.com'
  requireOptions('sms', { account_sid: options.accountSid, auth_token: options.authToken, from: options.from, api_base: apiBase })
  const sid = options.accountSid ?? ''
  const authToken = options.authToken ?? ''
  const client = createChatClient(options)
  const url = `${baseUrl(apiBase)}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`
  const authorization = `Basic ${Buffer.from(`${sid}:${authToken}`).toString('base64')}`
  const secrets = [authToken, authorization.slice('Basic '.length)]

  return chatTarget({
    name: 'sms',
    limit: SMS_LIMIT,
    homeChannel: options.homeChannel,
    async send(text, to, ctx) {
      const body = new URLSearchParams({ To: to.chatId, From: options.from ?? '', Body: text })
      const init = { method: 'post', body, headers: { authorization }, signal: ctx.signal }
      const reply = await send(client, 'sms', url, init, secrets)
      if (reply.ok) return
      const code = field(reply.body, 'code')
      const detail = textField(reply.body, 'message')
      throw httpFailure('sms', reply, {
        detail: detail === undefined ? undefined : `${detail}${typeof code === 'number' ? ` (Twilio error ${code})` : ''}`,
        hint: statusHint(reply.status, 'sms', 'auth_token') ?? 'check the phone number (E.164, e.g. +15551234567)',
        secrets,
      })
    },
  })
}
