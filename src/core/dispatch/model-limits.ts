/**
 * The model API's limits (`costs.model_limits`): requests and tokens per minute per model, kept by every run
 * of every instance on a shared store. Each model has one pacing note in the state store: the earliest moment
 * of its next request by the request limit (every request moves it on by the window over the request limit, so
 * requests are spread evenly, never sent in a burst), the earliest moment by the token limit (every token moves
 * it on by the window over the token limit), and a pause a `429`'s `Retry-After` set. A call books its moment
 * by compare-and-set on the note and waits for it, so two instances never send in the same slot; one that
 * really sends late (a stalled process) moves the pace on from when it went. The pace is kept 10 % under the
 * published limit, for the way to the provider that takes longer some times than others.
 *
 * Tokens are booked by an estimate before the call (the prompt's length over four) and corrected by what the
 * call reported afterwards, so a run that used more than guessed slows the ones after it.
 */
import { updateNote, type NoteStore } from '../jobs/lifecycle/notes.js'
import type { JsonValue } from '../types.js'
import type { ModelLimits } from '../agent-types.js'
import { abortableSleep } from '../../util/abortable-sleep.js'

/** One model's limits, as configured. */
export interface ModelLimit {
  readonly requestsPerWindow?: number | undefined
  readonly tokensPerWindow?: number | undefined
  /** The window the limits are counted over: 60,000 (a minute) as providers publish them. */
  readonly windowMs: number
}

/** Below the published limit by this much (see the module's comment). */
const HEADROOM = 0.9
/** A pacing note is forgotten this long after its last write (a model not called for a day starts afresh). */
const NOTE_TTL_MS = 86_400_000

interface Pace {
  /** The earliest moment of the next request by the request limit. */
  readonly requestsAt: number
  /** The earliest moment of the next request by the token limit; the 429's pause. */
  readonly tokensAt: number
  readonly pausedUntil: number
}

function paceOf(value: JsonValue | undefined): Pace {
  const o = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {}
  const n = (x: JsonValue | undefined) => (typeof x === 'number' && Number.isFinite(x) ? x : 0)
  return { requestsAt: n(o.requestsAt), tokensAt: n(o.tokensAt), pausedUntil: n(o.pausedUntil) }
}

const valueOf = (p: Pace): JsonValue => ({ requestsAt: p.requestsAt, tokensAt: p.tokensAt, pausedUntil: p.pausedUntil })

/**
 * The model limits over `notes` (every instance on the store shares them), with `now` as the clock. A model
 * without a limit is never paced.
 */
export function createModelLimits(notes: NoteStore, limits: Readonly<Record<string, ModelLimit>>, now: () => number): ModelLimits {
  const limitOf = (model: string): ModelLimit | undefined => (Object.hasOwn(limits, model) ? limits[model] : undefined)
  const key = (model: string) => `model-limit/${model}`
  /** How long one request, and one token, move the pace on (kept under the limit). */
  const shape = (limit: ModelLimit) => ({
    request: limit.requestsPerWindow === undefined ? 0 : limit.windowMs / Math.max(1, Math.floor(limit.requestsPerWindow * HEADROOM)),
    token: limit.tokensPerWindow === undefined ? 0 : limit.windowMs / (limit.tokensPerWindow * HEADROOM),
  })
  /** The earliest moment `pace` lets the next request go. */
  const nextSlot = (pace: Pace): number => Math.max(now(), pace.requestsAt, pace.tokensAt, pace.pausedUntil)

  return {
    limited: (model) => limitOf(model) !== undefined,

    async wait(model) {
      const limit = limitOf(model)
      if (limit === undefined) return 0
      return Math.max(0, nextSlot(paceOf((await notes.get(key(model)))?.value)) - now())
    },

    async take(model, tokens, signal) {
      const limit = limitOf(model)
      if (limit === undefined) return
      const step = shape(limit)
      const slot = await updateNote(notes, key(model), (current) => {
        const pace = paceOf(current)
        const at = nextSlot(pace)
        return { value: valueOf({ ...pace, requestsAt: at + step.request, tokensAt: at + Math.max(0, tokens) * step.token }), result: at }
      }, { ttlMs: NOTE_TTL_MS })
      await abortableSleep(slot - now(), signal)
      const late = now()
      // Sent later than booked (a stalled process): the requests booked after it count from when it really went.
      if (step.request > 0 && late - slot > 1) {
        await updateNote(notes, key(model), (current) => {
          const pace = paceOf(current)
          if (pace.requestsAt >= late + step.request) return { result: undefined }
          return { value: valueOf({ ...pace, requestsAt: late + step.request }), result: undefined }
        }, { ttlMs: NOTE_TTL_MS })
      }
    },

    async used(model, extraTokens) {
      const limit = limitOf(model)
      if (limit === undefined || extraTokens === 0) return
      const step = shape(limit).token
      if (step === 0) return
      await updateNote(notes, key(model), (current) => {
        const pace = paceOf(current)
        // Fewer than booked gives the rest back, but never before now: what is past is spent.
        const tokensAt = Math.max(now(), pace.tokensAt + extraTokens * step)
        return { value: valueOf({ ...pace, tokensAt }), result: undefined }
      }, { ttlMs: NOTE_TTL_MS })
    },

    async slowDown(model, retryAfterMs) {
      if (limitOf(model) === undefined) return
      await updateNote(notes, key(model), (current) => {
        const pace = paceOf(current)
        const until = now() + Math.max(0, retryAfterMs)
        if (until <= pace.pausedUntil) return { result: undefined }
        return { value: valueOf({ ...pace, pausedUntil: until }), result: undefined }
      }, { ttlMs: NOTE_TTL_MS })
    },
  }
}
