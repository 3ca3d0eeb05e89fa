import type { DeliveryTarget } from '../../../core/types.js'
import { baseUrl } from '../chat/chat-http.js'
import { textField } from '../../shared/json-body.js'
import { requireOptions } from '../chat/chat-target.js'
import { httpChatTarget, type ChatPlatformOptions } from '../chat/http-chat-target.js'

/** Options of {@link signalDelivery} (`platforms.signal`). */
export interface SignalOptions extends ChatPlatformOptions {
  /** The signal-cli REST API server, e.g. `http://127.0.0.1:8080`. Required: Signal has no public one. */
  readonly apiBase: string | undefined
  /** The registered number messages are sent from (`platforms.signal.account`, e.g. `+4915112345678`). */
  readonly account: string | undefined
}

/** Signal apps show at most 2,000 characters of a message inline; parts stay under it. */
export const SIGNAL_LIMIT = 2000

/**
 * The `signal` delivery target: `POST /v2/send` of a signal-cli REST API server
 * (github.com/bbernhard/signal-cli-rest-api) with `{ message, number, recipients }`, split at 2,000 characters.
 * `deliver_extra`: `chat_id` (the recipient: a number or `group.<id>`, else the home channel).
 *
 * @example
 * ```ts
 * const target = signalDelivery({ apiBase: 'http://127.0.0.1:8080', account: '+4915112345678', homeChannel: '+4915187654321' })
 * ```
 */
export function signalDelivery(options: SignalOptions): DeliveryTarget {
  requireOptions('signal', { api_base: options.apiBase, account: options.account })
  const url = `${baseUrl(options.apiBase ?? '')}/v2/send`

  return httpChatTarget({
    name: 'signal',
    limit: SIGNAL_LIMIT,
    homeChannel: options.homeChannel,
    http: options,
    secrets: [],
    credential: 'account',
    request: (text, to) => ({ url, json: { message: text, number: options.account, recipients: [to.chatId] } }),
    explain: (reply) => ({
      detail: textField(reply.body, 'error'),
      ...(reply.status === 400 ? { hint: 'check the recipient and platforms.signal.account' } : {}),
    }),
  })
}
