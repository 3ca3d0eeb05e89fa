/** `platforms.telegram`: a bot token, and `deliver: telegram` (or `messenger_1`) on routes. */
import * as v from 'valibot'
import { text } from '../../../core/config/schema-kit.js'
import { chatPlugin } from '../chat/chat-plugin.js'

/** Telegram's Bot API. */
export const telegramPlugin = chatPlugin({
  name: 'telegram',
  aliases: ['messenger_1'],
  entries: { token: v.optional(text) },
  secrets: ['token'],
  make: async (o, common) => (await import('./telegram-target.js')).telegramDelivery({ ...common, token: o.token }),
})
