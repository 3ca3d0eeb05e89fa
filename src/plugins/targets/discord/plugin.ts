/** `platforms.discord`: a bot token, and `deliver: discord` (or `messenger_2`) on routes. */
import * as v from 'valibot'
import { text } from '../../../core/config/schema-kit.js'
import { chatPlugin } from '../chat/chat-plugin.js'

/** Discord's REST API. */
export const discordPlugin = chatPlugin({
  name: 'discord',
  aliases: ['messenger_2'],
  entries: { token: v.optional(text) },
  secrets: ['token'],
  make: async (o, common) => (await import('./discord-target.js')).discordDelivery({ ...common, token: o.token }),
})
