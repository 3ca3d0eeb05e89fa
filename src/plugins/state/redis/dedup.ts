/**
 * De-dup shared by every instance on one Redis: the same state machine as the other backends (what a key's job
 * is decides the answer), with the request on its way to storing a job holding the key in Redis (a short hold
 * with a token, `SET NX PX`), so a copy of the delivery on any instance waits for it and then decides from
 * what was stored. A hold outlives no crash: it expires after `holdMs`.
 */
import { randomUUID } from 'node:crypto'
import type { Redis } from 'ioredis'
import type { LimitAnswer, LimitAsk, Reservation } from '../../../core/jobs/lifecycle/state-backend.js'
import type { RateLimiter } from '../../../core/types.js'
import { backoffDelay, type Backoff } from '../../../util/backoff.js'
import { decide, type KeyHolder } from '../../../core/jobs/lifecycle/transitions.js'
import type { Keys } from './keys.js'
import { booking, hitDecision, member, slotLua } from './limiter.js'
import { luaScript } from './script.js'

/** Deletes a hold only if it is still this request's (it may have expired and been taken by another). */
const RELEASE = luaScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)

/**
 * The key's owner (KEYS[1]) and, in the same atomic step, the hold (KEYS[2], token ARGV[1] for ARGV[2] ms) when
 * the key has no owner or ARGV[3] is '1': one round trip where a GET, a SET NX and a GET again were three, and
 * the owner it returns with a hold taken is the one read after the hold. Answers `{held, owner}`: held 1, the
 * hold is this request's; 0, not tried (the key has an owner: decide from its job first); -1, another holds it.
 * With a third key, the rate limit's log (ARGV[4] to ARGV[7] as the limiter's script takes them), a hold of a
 * key that has no owner (a new delivery, nothing else) also counts the request's hit, in the same step, and
 * answers `{1, nil, wait}`: the round trip the limiter's own script would have cost after this one.
 */
const TAKE = luaScript(`
local owner = redis.call('GET', KEYS[1])
if owner and ARGV[3] ~= '1' then return {0, owner} end
if not redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[2], 'NX') then return {-1, owner} end
if owner or #KEYS < 3 then return {1, owner} end
${slotLua('KEYS[3]', (n) => `ARGV[${n + 3}]`)}
return {1, owner, wait}`)

/**
 * Between looks at a key another request holds: a few milliseconds at first, since the holder is usually about to
 * store its job, and never more than 50 ms, so a copy answers soon after the hold is given back.
 */
const HOLD_WAIT: Backoff = { baseDelayMs: 2, maxDelayMs: 50 }

/** What {@link redisDedup} needs. */
export interface RedisDedupOptions {
  readonly redis: () => Redis
  readonly keys: Keys
  /** The job a key's owner id names, as the store knows it now; undefined when there is none. */
  readonly holder: (jobId: string) => Promise<KeyHolder | undefined>
  readonly now: () => number
  /** How long a hold lasts if its request never gives it back (its instance died). */
  readonly holdMs: number
  /** How long a done job holds its key after it finished. */
  readonly windowMs: number
  /** The rate limiter this backend gives the gateway, and its window: a {@link LimitAsk} naming it is answered here. */
  readonly rate?: { readonly limiter: RateLimiter; readonly windowMs: number } | undefined
}

/** A reservation's hold in Redis: its key and token. */
export interface Hold {
  readonly key: string
  readonly token: string
}

/** The holds of the reservations {@link redisDedup} handed out and that have not been given back yet. */
const holds = new WeakMap<Reservation, { readonly hold: Hold; readonly claim: () => boolean }>()

/**
 * Takes over `reservation`'s hold, so that the caller gives it back in a command of its own (with the write
 * that binds the key, in one round trip); its `release()` then does nothing. Undefined when it has none left.
 */
export function handOver(reservation: Reservation | undefined): Hold | undefined {
  const held = reservation && holds.get(reservation)
  return held?.claim() ? held.hold : undefined
}

/** Reserves `key` for one request, on every instance at once. */
export function redisDedup(options: RedisDedupOptions): (key: string, limit?: LimitAsk) => Promise<Reservation> {
  const { redis, keys, holdMs, windowMs } = options
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
  /** What the store says of the key an owner id names. */
  const judge = async (owner: string | null) => {
    const holder = owner === null ? undefined : await options.holder(owner)
    return { holder, status: decide(holder, windowMs, options.now()) }
  }
  return async function reserve(key, limit) {
    const owner = keys.keyOwner(key)
    const hold = keys.hold(key)
    // randomUUID draws from a cached pool of random bytes: far cheaper per request than randomBytes.
    const token = randomUUID()
    const release = () => RELEASE(redis(), [hold], [token]).then(() => undefined, () => undefined)
    // The rate limit is counted with the hold when the limiter is this backend's own; the member is this
    // request's entry in the limit's log (a booking gives it back by it).
    const counted = limit !== undefined && limit.limiter === options.rate?.limiter ? { ...limit, log: keys.rate(limit.key), member: member() } : undefined
    /**
     * The owner id, whether this request now holds the key (TAKE), and the rate limit's wait when it was counted
     * with the hold; `force` tries the hold even with an owner (the limit is then the limiter's business).
     */
    const take = async (force: boolean) => {
      const [held, id, wait] = (counted && !force
        ? await TAKE(redis(), [owner, hold, counted.log], [token, holdMs, '0', options.rate!.windowMs, counted.limit, counted.member, counted.mode])
        : await TAKE(redis(), [owner, hold], [token, holdMs, force ? '1' : '0'])) as [number, string | null, number | null | undefined]
      return { held, id, wait: wait ?? undefined }
    }
    /** The limit's answer for a `new` reservation, when it was counted with the hold. */
    const answered = (wait: number | undefined): LimitAnswer | undefined => {
      if (counted === undefined || wait === undefined) return undefined
      return counted.mode === 'hit' ? { hit: hitDecision(wait) } : { booked: booking(redis, counted.log, counted.member, wait) }
    }
    // A stored job that holds the key answers a copy at once, without the hold; only a copy that would store a
    // job takes it, reading the owner again in the same step (another may have stored one in between). While
    // another request holds it, the copy waits, a few milliseconds apart at first, since the holder is usually
    // about to store.
    let after: string | null
    let wait: number | undefined
    for (let attempt = 1; ; attempt++) {
      let taken = await take(false)
      if (taken.held === 0) {
        const before = await judge(taken.id)
        if (before.status === 'duplicate') return { status: 'duplicate', key, jobId: before.holder?.id }
        taken = await take(true)
      }
      if (taken.held === 1) {
        after = taken.id
        wait = taken.wait
        break
      }
      await sleep(backoffDelay(HOLD_WAIT, attempt))
    }
    try {
      const { holder, status } = await judge(after)
      if (status === 'duplicate') {
        await release()
        return { status, key, jobId: holder?.id }
      }
      let given = false
      /** The hold, for whoever asks first: this reservation's release(), or the add that hands it over. */
      const claim = () => {
        if (given) return false
        given = true
        return true
      }
      // add() gives the hold back once the key is bound to the stored job: a waiting copy then finds the job.
      // Not awaited: release() swallows its own failure (the hold then expires after holdMs by itself).
      const giveBack = () => void (claim() && release())
      // A hit counted with the hold belongs to a key without an owner: a new delivery (judge finds no job).
      const reservation: Reservation = status === 'redeliver' && holder
        ? { status, key, jobId: holder.id, release: giveBack }
        : { status: 'new', key, release: giveBack, limit: answered(wait) }
      holds.set(reservation, { hold: { key: hold, token }, claim })
      return reservation
    } catch (err) {
      // Not awaited: a Redis that did not answer the read will not answer this either, and the request must be
      // answered now; the hold expires after holdMs by itself.
      void release()
      throw err
    }
  }
}
