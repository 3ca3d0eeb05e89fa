/**
 * A finished job as the memory backend keeps it for its de-dup window (an hour, up to 100,000 jobs): a compact
 * entry that gives the same record back on every read. A record held as the lifecycle returns it cost about
 * 300 bytes of heap: 22 fields, most of them `undefined` for a finished job, and four timestamps, each a boxed
 * number. Here the fields that are rarely set share one object made only when one is, the times are kept as
 * one timestamp and small differences from it, and the route and event names are one string each for all jobs.
 */
import type { JobRecord, JobStage } from '../../../core/jobs/lifecycle/job-record.js'
import type { JobState } from '../../../core/job-state.js'
import type { JsonObject } from '../../../core/types.js'
import type { RunUsage } from '../../../core/usage.js'

/** The fields of a finished record that are usually unset, kept apart (and only when one is set). */
interface Rare {
  readonly answer: string | undefined
  readonly lastError: string | undefined
  readonly group: string | undefined
  readonly burstAt: number | undefined
  readonly supersededBy: string | undefined
  readonly note: string | undefined
  readonly url: string | undefined
  readonly fairKey: string | undefined
  readonly startBy: number | undefined
  readonly usage: RunUsage | undefined
}

/** Every field of a record, in the order the lifecycle writes them: a record read back has the same keys in that order. */
const FIELDS = [
  'id', 'route', 'event', 'deliveryId', 'dedupKey', 'state', 'stage', 'answer', 'progress', 'attempts', 'notBefore', 'lastError',
  'receivedAt', 'updatedAt', 'finishedAt', 'group', 'burstAt', 'covers', 'supersededBy', 'note', 'url', 'runs',
  'link', 'hook', 'fairKey', 'turn', 'startBy', 'usage',
] as const satisfies ReadonlyArray<keyof JobRecord>
// A field added to JobRecord and not kept here fails the build, not a read.
type Unkept = Exclude<keyof JobRecord, (typeof FIELDS)[number]>
const allKept: [Unkept] extends [never] ? true : Unkept = true

/** Route and event names: a few per gateway. Bounded: an event name is whatever a sender put in its header. */
const names = new Map<string, string>()
const MAX_NAMES = 256

/** One string for each name, so 100,000 jobs of one route and event hold one copy of each. */
function shared(name: string): string {
  const known = names.get(name)
  if (known !== undefined) return known
  if (names.size < MAX_NAMES) names.set(name, name)
  return name
}

/**
 * One string, not the tree of pieces V8 keeps for a string made by concatenation until it is read (a UUID
 * built in JavaScript is one: about 490 bytes for its 36 characters). Converting it to a number makes V8
 * flatten it in place, as the flatstr package does; the value is unchanged.
 */
function flat(text: string): string {
  Number(text)
  return text
}

/**
 * Whether `job` can be kept as a {@link FinishedEntry}: finished, with exactly the known fields, and its times
 * whole milliseconds (a difference of two of them is then exact, so the times read back are the times stored).
 */
export function packable(job: JobRecord): boolean {
  return allKept && job.finishedAt !== undefined && Object.keys(job).length === FIELDS.length &&
    Number.isSafeInteger(job.finishedAt) && Number.isSafeInteger(job.receivedAt) && Number.isSafeInteger(job.updatedAt) &&
    Number.isSafeInteger(job.notBefore)
}

/** A finished job's entry in the memory backend; `job` builds its record, equal to the one it was made from. */
export class FinishedEntry {
  readonly #id: string
  readonly #route: string
  readonly #event: string
  readonly #deliveryId: string
  readonly #dedupKey: string | undefined
  readonly state: JobState
  readonly #stage: JobStage
  readonly #progress: number
  readonly #attempts: number
  readonly #runs: number
  readonly #covers: number
  readonly #turn: number
  /** finishedAt; the other times as their distance before it (small integers: no boxed number each). */
  readonly #at: number
  readonly #received: number
  readonly #updated: number
  readonly #notBefore: number
  readonly #rare: Rare | undefined
  /** Most jobs of a code host have a link, so it is not one of the rare fields. */
  readonly #link: string | undefined
  readonly #hook: string | undefined
  /** The payload, while this job is among the latest done ones that keep it (for an operator's retry). */
  payload: JsonObject | undefined
  /** A finished job holds no lease. */
  readonly token = undefined

  /** Packs `job`, which {@link packable} accepted. */
  constructor(job: JobRecord, payload: JsonObject | undefined) {
    const at = job.finishedAt ?? 0
    this.#id = job.id
    this.#route = shared(job.route)
    this.#event = shared(job.event)
    this.#deliveryId = flat(job.deliveryId)
    this.#dedupKey = job.dedupKey
    this.state = job.state
    this.#stage = job.stage
    this.#progress = job.progress
    this.#attempts = job.attempts
    this.#runs = job.runs
    this.#covers = job.covers
    this.#turn = job.turn ?? 0
    this.#at = at
    this.#received = at - job.receivedAt
    this.#updated = at - job.updatedAt
    this.#notBefore = at - job.notBefore
    const { answer, lastError, group, burstAt, supersededBy, note, url, fairKey, startBy, usage } = job
    const rare = [answer, lastError, group, burstAt, supersededBy, note, url, fairKey, startBy, usage].some((v) => v !== undefined)
    this.#rare = rare ? { answer, lastError, group, burstAt, supersededBy, note, url, fairKey, startBy, usage } : undefined
    this.#link = job.link
    this.#hook = job.hook
    this.payload = payload
  }

  /** The record, rebuilt: the same fields, values and key order as the one stored. */
  get job(): JobRecord {
    const at = this.#at
    const rare = this.#rare
    return {
      id: this.#id, route: this.#route, event: this.#event, deliveryId: this.#deliveryId, dedupKey: this.#dedupKey, state: this.state,
      stage: this.#stage, answer: rare?.answer, progress: this.#progress, attempts: this.#attempts, notBefore: at - this.#notBefore,
      lastError: rare?.lastError, receivedAt: at - this.#received, updatedAt: at - this.#updated, finishedAt: at, group: rare?.group,
      burstAt: rare?.burstAt, covers: this.#covers, supersededBy: rare?.supersededBy, note: rare?.note, url: rare?.url, runs: this.#runs,
      link: this.#link, hook: this.#hook, fairKey: rare?.fairKey, turn: this.#turn, startBy: rare?.startBy, usage: rare?.usage,
    }
  }
}
