import type { DeliveryTarget } from '../../../core/types.js'
import { baseUrl } from '../chat/chat-http.js'
import { field, textField } from '../../shared/json-body.js'
import { requireOptions } from '../chat/chat-target.js'
import { httpChatTarget, type ChatPlatformOptions } from '../chat/http-chat-target.js'

/** Options of {@link smsDelivery} (`platforms.sms`, Twilio); `apiBase` defaults to `https://api.twilio.com`. */
export interface SmsOptions extends ChatPlatformOptions {
  /** The Twilio account SID, `AC...` (`platforms.sms.account_sid`). */
  readonly accountSid: string | undefined
  /** The Twilio auth token (`platforms.sms.auth_token`). */
  readonly authToken: string | undefined
  /** The Twilio number messages are sent from, E.164 (`platforms.sms.from`). */
  readonly from: string | undefined
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
  const url = `${baseUrl(apiBase)}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Messages.json`
  const basic = Buffer.from(`${sid}:${options.authToken ?? ''}`).toString('base64')

  return httpChatTarget({
    name: 'sms',
    limit: SMS_LIMIT,
    homeChannel: options.homeChannel,
    http: options,
    secrets: [options.authToken, basic],
    credential: 'auth_token',
    request: (text, to) => ({
      url,
      headers: { authorization: `Basic ${basic}` },
      body: new URLSearchParams({ To: to.chatId, From: options.from ?? '', Body: text }),
    }),
    explain(reply) {
      const code = field(reply.body, 'code')
      const detail = textField(reply.body, 'message')
      return {
        detail: detail === undefined ? undefined : `${detail}${typeof code === 'number' ? ` (Twilio error ${code})` : ''}`,
        ...(reply.status === 400 ? { hint: 'check the phone number (E.164, e.g. +15551234567)' } : {}),
      }
    },
  })
}
