import type { DeliveryTarget } from '../../core/types.js'
import { baseUrl, createChatClient, httpFailure, send, statusHint, textField, type ChatHttpOptions } from '../shared/chat-http.js'
import { chatTarget, requireOptions } from '../shared/chat-target.js'

/** Options of {@link signalDelivery} (`platforms.signal`). */
export interface SignalOptions extends ChatHttpOptions {
  /** The signal-cli REST API server, e.g. `http://127.0.0.1:8080`. Required: Signal has no public one. */
  readonly apiBase: string | undefined
  /** The registered number messages are sent from (`platforms.signal.account`, e.g. `+4915112345678`). */
  readonly account: string | undefined
  /** The recipient (number or `group.<id>`) used when a route gives no `deliver_extra.chat_id`. */
  readonly homeChannel?: string | undefined
}

/** Signal apps show at most 2,000 characters of a message inline; parts stay under it. */
export const SIGNAL_LIMIT = 2000

/**
 * The `signal` delivery target: `POST /v2/send` of a signal-cli REST API server
 * (github.com/bbernhard/signal-cli-rest-api) with `{ message, number, recipients }`, split at 2,000 characters.
 * `deliver_extra`: `chat_id` (the recipient, else the home channel).
 *
 * @example
 * ```ts
 * const target = signalDelivery({ apiBase: 'http://127.0.0.1:8080', account: '+4915112345678', homeChannel: '+4915187654321' })
 * ```
 */
export function signalDelivery(options: SignalOptions): DeliveryTarget {
  requireOptions('signal', { api_base: options.apiBase, account: options.account })
  const client = createChatClient(options)
  const url = `${baseUrl(options.apiBase ?? '')}/v2/send`

  return chatTarget({
    name: 'signal',
    aliases: ['messenger_4'],
    limit: SIGNAL_LIMIT,
    homeChannel: options.homeChannel,
    async send(text, to, ctx) {
      const json = { message: text, number: options.account, recipients: [to.chatId] }
      const reply = await send(client, 'signal', url, { method: 'post', json, signal: ctx.signal }, [])
      if (reply.ok) return
      throw httpFailure('signal', reply, {
        detail: textField(reply.body, 'error'),
        hint: statusHint(reply.status, 'signal', 'account') ?? 'check the recipient and platforms.signal.account',
        secrets: [],
      })
    },
  })
}
