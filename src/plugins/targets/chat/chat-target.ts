/**
 * What every chat delivery target shares: choosing the chat (the route's `chat_id`, else the platform's home
 * channel), the startup check of a route, splitting at the platform's limit, and posting each part once even
 * when a retry (or a restart after a crash) follows a failure half-way: the job records each part posted. A platform supplies only how one message is sent.
 */
import { ConfigError, DeliveryError, type ConfigIssue } from '../../../core/errors.js'
import type { AgentAnswer, DeliveryContext, DeliveryTarget, Route } from '../../../core/types.js'
import { inertMarkers } from '../../shared/hidden-markers.js'
import { answerKey } from './answer-key.js'
import { splitMessage } from './split-message.js'

/**
 * What is posted for an empty (or blank) answer: every chat platform refuses an empty message, and an empty answer
 * is still delivered, so the route's readers see that the agent ran and had nothing to say instead of wondering
 * whether it ran. Routes that want silence list `""` in `silent_outputs`.
 */
export const EMPTY_ANSWER = '(the agent gave an empty answer)'

/** Where one part goes. */
export interface ChatAddress {
  /** The route's rendered `deliver_extra.chat_id`, else the home channel. */
  readonly chatId: string
  /** The route's rendered `deliver_extra` (thread ids and the like). */
  readonly extra: Readonly<Record<string, string>>
  /** Which part of the answer this is (0-based) and how many there are. */
  readonly part: number
  readonly parts: number
  /** Stable per answer and part: platforms with an idempotency key (Discord's nonce) use it. */
  readonly key: string
}

/** A chat platform: its name, its message limit and how it posts one message. */
export interface ChatPlatformSpec {
  readonly name: string
  readonly aliases?: readonly string[]
  /** Most characters in one message; longer answers are split on line boundaries. */
  readonly limit: number
  readonly homeChannel: string | undefined
  /** Posts one message; throws a {@link DeliveryError} (retryable or not) when it cannot. */
  send(text: string, to: ChatAddress, ctx: DeliveryContext): Promise<void>
}

/** Builds a {@link DeliveryTarget} from a platform's spec. */
export function chatTarget(spec: ChatPlatformSpec): DeliveryTarget {
  const homeChannel = nonEmpty(spec.homeChannel)
  return {
    name: spec.name,
    publishes: true,
    ...(spec.aliases ? { aliases: spec.aliases } : {}),
    checkRoute(route: Route) {
      if (nonEmpty(route.deliverExtra['chat_id']) !== undefined || homeChannel !== undefined) return undefined
      return `route "${route.name}" delivers to ${spec.name}, but has no chat: set deliver_extra.chat_id on the route or platforms.${spec.name}.home_channel`
    },
    async deliver(answer: AgentAnswer, ctx: DeliveryContext) {
      const chatId = nonEmpty(answer.extra['chat_id']) ?? homeChannel
      if (chatId === undefined) {
        throw new DeliveryError(spec.name, `no chat id for route "${answer.route}" and no platforms.${spec.name}.home_channel`)
      }
      // Markers inert here too: no body any target writes can pass for a sticky route's comment.
      const text = answer.text.trim() === '' ? EMPTY_ANSWER : inertMarkers(answer.text)
      const parts = splitMessage(text, spec.limit).filter((p) => p.trim() !== '')
      const key = answerKey(answer.route, answer.deliveryId, text)
      const done = ctx.progress
      if (done > 0) ctx.log.info('resuming a split answer', { route: answer.route, delivery: answer.deliveryId, target: spec.name, posted: done })
      for (let part = done; part < parts.length; part++) {
        const to = { chatId, extra: answer.extra, part, parts: parts.length, key: `${key}\u0000${part}` }
        await spec.send(parts[part] ?? '', to, ctx)
        // Stored before the next part goes: a retry, or the job resumed after a crash, starts after it.
        await ctx.saveProgress(part + 1)
      }
    },
  }
}

/**
 * Throws a ConfigError when a platform's options miss what it needs; `required` maps config keys
 * (`token`, `api_base`) to their values.
 */
export function requireOptions(platform: string, required: Readonly<Record<string, string | undefined>>): void {
  const issues: ConfigIssue[] = []
  for (const [key, value] of Object.entries(required)) {
    const path = `platforms.${platform}.${key}`
    if (nonEmpty(value) === undefined) issues.push({ path, message: `${platform} is enabled, so ${key} is required` })
    else if (key === 'api_base' && !/^https?:\/\/[^/]/i.test(value ?? '')) {
      issues.push({ path, message: 'expected an http:// or https:// URL' })
    }
  }
  if (issues.length > 0) throw new ConfigError(issues)
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value
}
