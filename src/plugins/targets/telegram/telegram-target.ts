import { DeliveryError } from '../../../core/errors.js'
import type { DeliveryTarget } from '../../../core/types.js'
import { baseUrl } from '../chat/chat-http.js'
import { field, textField } from '../../shared/json-body.js'
import { requireOptions } from '../chat/chat-target.js'
import { httpChatTarget, type ChatPlatformOptions } from '../chat/http-chat-target.js'

/** Options of {@link telegramDelivery} (`platforms.telegram`); `apiBase` defaults to `https://api.telegram.org`. */
export interface TelegramOptions extends ChatPlatformOptions {
  /** The bot token from @BotFather (`platforms.telegram.token`). */
  readonly token: string | undefined
}

/** Telegram's limit for one message's text. */
export const TELEGRAM_LIMIT = 4096

/**
 * The `telegram` delivery target: posts the answer with the Bot API's `sendMessage`, as plain text (no parse
 * mode, so an answer's `*` or `<` never makes Telegram refuse it), split at 4,096 characters.
 * `deliver_extra`: `chat_id` (else the home channel), `message_thread_id` (a forum topic).
 *
 * @example
 * ```ts
 * const target = telegramDelivery({ token: process.env.TELEGRAM_BOT_TOKEN, homeChannel: '-1001234567890' })
 * const mine = definePlugin({ name: 'my-telegram', setup: () => ({ name: 'my-telegram', deliveryTargets: [target] }) })
 * const gateway = await createGateway(config, [mine])
 * ```
 */
export function telegramDelivery(options: TelegramOptions): DeliveryTarget {
  const apiBase = options.apiBase ?? 'https://api.telegram.org'
  requireOptions('telegram', { token: options.token, api_base: apiBase })
  const token = options.token ?? ''
  // The token is part of the path: the secrets list keeps it out of every error.
  const url = `${baseUrl(apiBase)}/bot${token}/sendMessage`

  return httpChatTarget({
    name: 'telegram',
    limit: TELEGRAM_LIMIT,
    homeChannel: options.homeChannel,
    http: options,
    secrets: [token],
    credential: 'token',
    request(text, to) {
      const thread = to.extra['message_thread_id']
      if (thread !== undefined && thread !== '' && !/^[1-9]\d*$/.test(thread)) {
        throw new DeliveryError('telegram', `message_thread_id must be a positive integer, got ${JSON.stringify(thread.slice(0, 40))}`)
      }
      const json = {
        chat_id: to.chatId,
        text,
        link_preview_options: { is_disabled: true },
        ...(thread ? { message_thread_id: Number(thread) } : {}),
      }
      return { url, json }
    },
    accepted: (reply) => reply.ok && field(reply.body, 'ok') === true,
    explain(reply) {
      const retryAfter = field(field(reply.body, 'parameters'), 'retry_after')
      return { detail: textField(reply.body, 'description'), retryAfterMs: typeof retryAfter === 'number' ? retryAfter * 1000 : undefined }
    },
  })
}
