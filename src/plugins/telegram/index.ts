import { DeliveryError } from '../../core/errors.js'
import type { DeliveryTarget } from '../../core/types.js'
import { baseUrl, createChatClient, field, httpFailure, send, statusHint, textField, type ChatHttpOptions } from '../shared/chat-http.js'
import { chatTarget, requireOptions } from '../shared/chat-target.js'

/** Options of {@link telegramDelivery} (`platforms.telegram`). */
export interface TelegramOptions extends ChatHttpOptions {
  /** The bot token from @BotFather (`platforms.telegram.token`). */
  readonly token: string | undefined
  /** The chat used when a route gives no `deliver_extra.chat_id`. */
  readonly homeChannel?: string | undefined
  /** The Bot API server. Defaults to `https://api.telegram.org` (a local Bot API server works too). */
  readonly apiBase?: string | undefined
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
 * const gateway = await createGateway(config, [defineDeliveryTarget(target)])
 * ```
 */
export function telegramDelivery(options: TelegramOptions): DeliveryTarget {
  const apiBase = options.apiBase ?? 'https://api.telegram.org'
  requireOptions('telegram', { token: options.token, api_base: apiBase })
  const token = options.token ?? ''
  const client = createChatClient(options)
  const url = `${baseUrl(apiBase)}/bot${token}/sendMessage`
  const secrets = [token]

  return chatTarget({
    name: 'telegram',
    aliases: ['messenger_1'],
    limit: TELEGRAM_LIMIT,
    homeChannel: options.homeChannel,
    async send(text, to, ctx) {
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
      const reply = await send(client, 'telegram', url, { method: 'post', json, signal: ctx.signal }, secrets)
      if (reply.ok && field(reply.body, 'ok') === true) return
      const retryAfter = field(field(reply.body, 'parameters'), 'retry_after')
      throw httpFailure('telegram', reply, {
        detail: textField(reply.body, 'description'),
        retryAfterMs: typeof retryAfter === 'number' ? retryAfter * 1000 : undefined,
        hint: statusHint(reply.status, 'telegram', 'token'),
        secrets,
      })
    },
  })
}
