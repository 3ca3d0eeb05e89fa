/**
 * A chat target whose platform is an HTTP API: one POST per message. A platform says how a message becomes a
 * request, what counts as accepted, and what its error answers mean; sending, classifying and keeping tokens out
 * of errors happen here.
 */
import type { Options } from 'ky'
import { DeliveryError } from '../../../core/errors.js'
import type { DeliveryTarget } from '../../../core/types.js'
import { createChatClient, httpFailure, send, statusHint, type ChatHttpOptions, type FailureDetail, type HttpReply } from './chat-http.js'
import { chatTarget, type ChatAddress, type ChatPlatformSpec } from './chat-target.js'

/** Options every HTTP chat platform takes besides its credentials. */
export interface ChatPlatformOptions extends ChatHttpOptions {
  /** The chat used when a route gives no `deliver_extra.chat_id` (`platforms.<name>.home_channel`). */
  readonly homeChannel?: string | undefined
  /** The API's base URL (`platforms.<name>.api_base`); defaults to the public service. */
  readonly apiBase?: string | undefined
}

/** One message as an HTTP request (always a POST). */
export type ChatRequestInit = { readonly url: string } & Pick<Options, 'json' | 'body' | 'headers'>

/** A platform reached over HTTP. */
export interface HttpChatSpec extends Omit<ChatPlatformSpec, 'send'> {
  readonly http: ChatHttpOptions
  /** Values that must never appear in an error (tokens, encoded credentials). */
  readonly secrets: readonly (string | undefined)[]
  /** The config key of the credential, named when the platform refuses it (`token`, `auth_token`). */
  readonly credential: string
  /** The request for one message; may throw a DeliveryError for an address the platform cannot take. */
  request(text: string, to: ChatAddress): ChatRequestInit
  /** Whether the platform took the message. Defaults to a 2xx status. */
  accepted?(reply: HttpReply): boolean
  /** What a refusal says: the platform's words and wait, or a ready DeliveryError for answers only it understands. */
  explain(reply: HttpReply): Omit<FailureDetail, 'secrets'> | DeliveryError
}

/** Builds a {@link DeliveryTarget} from an HTTP platform's spec. */
export function httpChatTarget(spec: HttpChatSpec): DeliveryTarget {
  const client = createChatClient(spec.http)
  return chatTarget({
    ...spec,
    async send(text, to, ctx) {
      const { url, ...init } = spec.request(text, to)
      const reply = await send(client, spec.name, url, { method: 'post', ...init, signal: ctx.signal }, spec.secrets)
      if (spec.accepted ? spec.accepted(reply) : reply.ok) return
      const explained = spec.explain(reply)
      if (DeliveryError.is(explained)) throw explained
      const hint = explained.hint ?? statusHint(reply.status, spec.name, spec.credential)
      throw httpFailure(spec.name, reply, { ...explained, hint, secrets: spec.secrets })
    },
  })
}
