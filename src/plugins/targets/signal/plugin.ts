/** `platforms.signal`: a signal-cli REST server (`api_base`) and the sending `account`. */
import * as v from 'valibot'
import { text } from '../../../core/config/schema-kit.js'
import { chatPlugin } from '../chat/chat-plugin.js'

/** Signal through signal-cli's REST API. */
export const signalPlugin = chatPlugin({
  name: 'signal',
  aliases: ['messenger_4'],
  entries: { account: v.optional(text) },
  secrets: [],
  make: async (o, common) => (await import('./signal-target.js')).signalDelivery({ ...common, apiBase: common.apiBase, account: o.account }),
})
