import { DeliveryError } from '../../core/errors.js'
import type { DeliveryTarget } from '../../core/types.js'
import {
  baseUrl, createChatClient, field, httpFailure, parseRetryAfter, send, statusHint, textField, type ChatHttpOptions,
} from '../shared/chat-http.js'
import { chatTarget, requireOptions } from '../shared/chat-target.js'

/** Options of {@link slackDelivery} (`platforms.slack`). */
export interface SlackOptions extends ChatHttpOptions {
  /** The bot token, `xoxb-...` (`platforms.slack.token`); the app needs the `chat:write` scope. */
  readonly token: string | undefined
  /** The channel id used when a route gives no `deliver_extra.chat_id`. */
  readonly homeChannel?: string | undefined
  /** The Web API. Defaults to `https://slack.com/api`. */
  readonly apiBase?: string | undefined
}

/** Slack cuts a message's text past 40,000 characters; parts stay under it. */
export const SLACK_LIMIT = 40_000

// Slack answers most failures with HTTP 200 and `{ ok: false, error }`; these codes pass with time.
const TRANSIENT = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout'])

const HINTS: Readonly<Record<string, string>> = {
  channel_not_found: 'check the chat id: a channel id such as C0123456789',
  not_in_channel: 'invite the bot to the channel',
  is_archived: 'the channel is archived',
  invalid_auth: 'check platforms.slack.token',
  not_authed: 'check platforms.slack.token',
  token_revoked: 'the token was revoked: check platforms.slack.token',
  account_inactive: 'the token was revoked: check platforms.slack.token',
  missing_scope: 'the app needs the chat:write scope',
}

/**
 * The `slack` delivery target: Web API `chat.postMessage` with the bot token as a bearer token.
 * `deliver_extra`: `chat_id` (the channel, else the home channel), `thread_ts` (reply in a thread).
 *
 * @example
 * ```ts
 * const target = slackDelivery({ token: process.env.SLACK_BOT_TOKEN, homeChannel: 'C0123456789' })
 * ```
 */
export function slackDelivery(options: SlackOptions): DeliveryTarget {
  const apiBase = options.apiBase ?? 'https://slack.com/api'
  requireOptions('slack', { token: options.token, api_base: apiBase })
  const token = options.token ?? ''
  const client = createChatClient(options)
  const url = `${baseUrl(apiBase)}/chat.postMessage`
  const secrets = [token]

  return chatTarget({
    name: 'slack',
    aliases: ['messenger_3'],
    limit: SLACK_LIMIT,
    homeChannel: options.homeChannel,
    async send(text, to, ctx) {
      const thread = to.extra['thread_ts']
      const json = { channel: to.chatId, text, ...(thread ? { thread_ts: thread } : {}) }
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8' }
      const reply = await send(client, 'slack', url, { method: 'post', json, headers, signal: ctx.signal }, secrets)
      if (!reply.ok) {
        throw httpFailure('slack', reply, { detail: textField(reply.body, 'error'), hint: statusHint(reply.status, 'slack', 'token'), secrets })
      }
      if (field(reply.body, 'ok') === true) return
      const code = textField(reply.body, 'error') ?? 'an answer that is not { ok: true }'
      const retryable = TRANSIENT.has(code)
      const hint = retryable || HINTS[code] === undefined ? '' : ` (${HINTS[code]})`
      throw new DeliveryError('slack', `chat.postMessage failed: ${code}${hint}`, {
        retryable,
        retryAfterMs: retryable ? parseRetryAfter(reply.headers.get('retry-after')) : undefined,
      })
    },
  })
}
