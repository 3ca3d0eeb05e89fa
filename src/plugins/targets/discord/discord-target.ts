import { createHash } from 'node:crypto'
import { DeliveryError } from '../../../core/errors.js'
import type { DeliveryTarget } from '../../../core/types.js'
import { baseUrl } from '../chat/chat-http.js'
import { field, textField } from '../../shared/json-body.js'
import { requireOptions } from '../chat/chat-target.js'
import { httpChatTarget, type ChatPlatformOptions } from '../chat/http-chat-target.js'

/** Options of {@link discordDelivery} (`platforms.discord`); `apiBase` defaults to `https://discord.com/api/v10`. */
export interface DiscordOptions extends ChatPlatformOptions {
  /** The bot token (`platforms.discord.token`), sent as `Authorization: Bot <token>`. */
  readonly token: string | undefined
}

/** Discord's limit for one message's content. */
export const DISCORD_LIMIT = 2000

/**
 * The `discord` delivery target: `POST /channels/{chat_id}/messages` with the bot token, split at 2,000
 * characters. Mentions are switched off (an answer quoting `@everyone` from a pull request must not ping a
 * server), and each part carries a nonce Discord enforces, so a retry after a lost answer never posts it twice.
 *
 * @example
 * ```ts
 * const target = discordDelivery({ token: process.env.DISCORD_BOT_TOKEN, homeChannel: '1234567890123456789' })
 * ```
 */
export function discordDelivery(options: DiscordOptions): DeliveryTarget {
  const apiBase = baseUrl(options.apiBase ?? 'https://discord.com/api/v10')
  requireOptions('discord', { token: options.token, api_base: apiBase })
  const token = options.token ?? ''

  return httpChatTarget({
    name: 'discord',
    limit: DISCORD_LIMIT,
    homeChannel: options.homeChannel,
    http: options,
    secrets: [token],
    credential: 'token',
    request(text, to) {
      // The id goes into the URL path: only a snowflake, so a rendered `../` cannot reach another endpoint.
      if (!/^\d{1,25}$/.test(to.chatId)) {
        throw new DeliveryError('discord', `chat_id must be a channel id (digits), got ${JSON.stringify(to.chatId.slice(0, 40))}`)
      }
      return {
        url: `${apiBase}/channels/${to.chatId}/messages`,
        headers: { authorization: `Bot ${token}` },
        json: { content: text, nonce: nonce(to.key), enforce_nonce: true, allowed_mentions: { parse: [] } },
      }
    },
    explain(reply) {
      const retryAfter = field(reply.body, 'retry_after')
      return { detail: textField(reply.body, 'message'), retryAfterMs: typeof retryAfter === 'number' ? retryAfter * 1000 : undefined }
    },
  })
}

/** Discord nonces are at most 25 characters; a hash of the part's key is stable across retries. */
function nonce(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 25)
}
