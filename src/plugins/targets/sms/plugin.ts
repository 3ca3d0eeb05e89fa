/** `platforms.sms`: Twilio credentials and the sending number. */
import * as v from 'valibot'
import { text } from '../../../core/config/schema-kit.js'
import { chatPlugin } from '../chat/chat-plugin.js'

/** SMS through Twilio's Messages API. */
export const smsPlugin = chatPlugin({
  name: 'sms',
  aliases: [],
  entries: { account_sid: v.optional(text), auth_token: v.optional(text), from: v.optional(text) },
  secrets: ['auth_token'],
  make: async (o, common) => (await import('./sms-target.js')).smsDelivery({ ...common, accountSid: o.account_sid, authToken: o.auth_token, from: o.from }),
})
