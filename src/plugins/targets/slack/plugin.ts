/** `platforms.slack`: a bot token, and `deliver: slack` (or `messenger_3`) on routes. */
import * as v from 'valibot'
import { text } from '../../../core/config/schema-kit.js'
import { chatPlugin } from '../chat/chat-plugin.js'

/** Slack's Web API. */
export const slackPlugin = chatPlugin({
  name: 'slack',
  aliases: ['messenger_3'],
  entries: { token: v.optional(text) },
  secrets: ['token'],
  make: async (o, common) => (await import('./slack-target.js')).slackDelivery({ ...common, token: o.token }),
})
