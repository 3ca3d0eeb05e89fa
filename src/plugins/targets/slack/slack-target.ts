import { DeliveryError } from '../../../core/errors.js'
import type { DeliveryTarget } from '../../../core/types.js'
import { parseRetryAfter } from '../../../util/retry-after.js'
import { baseUrl, type HttpReply } from '../chat/chat-http.js'
import { field, textField } from '../../shared/json-body.js'
import { requireOptions } from '../chat/chat-target.js'
import { httpChatTarget, type ChatPlatformOptions } from '../chat/http-chat-target.js'

/** Options of {@link slackDelivery} (`platforms.slack`); `apiBase` defaults to `https://slack.com/api`. */
export interface SlackOptions extends ChatPlatformOptions {
  /** The bot token, `xoxb-...` (`platforms.slack.token`); the app needs the `chat:write` scope. */
  readonly token: string | undefined
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
  const url = `${baseUrl(apiBase)}/chat.postMessage`
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8' }

  return httpChatTarget({
    name: 'slack',
    limit: SLACK_LIMIT,
    homeChannel: options.homeChannel,
    http: options,
    secrets: [token],
    credential: 'token',
    request(text, to) {
      const thread = to.extra['thread_ts']
      return { url, headers, json: { channel: to.chatId, text, ...(thread ? { thread_ts: thread } : {}) } }
    },
    accepted: (reply) => reply.ok && field(reply.body, 'ok') === true,
    explain: (reply) => (reply.ok ? slackError(reply) : { detail: textField(reply.body, 'error') }),
  })
}

/** A refusal Slack made with HTTP 200: its `error` code decides whether trying again can help. */
function slackError(reply: HttpReply): DeliveryError {
  const code = textField(reply.body, 'error') ?? 'an answer that is not { ok: true }'
  const retryable = TRANSIENT.has(code)
  const hint = retryable || HINTS[code] === undefined ? '' : ` (${HINTS[code]})`
  return new DeliveryError('slack', `chat.postMessage failed: ${code}${hint}`, {
    retryable,
    retryAfterMs: retryable ? parseRetryAfter(reply.headers.get('retry-after')) : undefined,
  })
}
