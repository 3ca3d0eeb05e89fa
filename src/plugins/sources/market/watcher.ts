/**
 * One watch at work: its market resolved, its state rebuilt from the alerts it stored and brought up to date
 * with the price history since the last of them, then the stream's events
 * turned into alerts that go to the gateway's intake one at a time, in the order they were detected. An alert's
 * effect on the state is kept only once the gateway holds it (accepted, or already stored).
 */
import { messageOf } from '../../../core/errors.js'
import type { JobsView } from '../../../core/jobs/lifecycle/jobs-view.js'
import type { EventIntake } from '../../../core/pipeline/intake.js'
import type { Clock, JsonObject, Logger } from '../../../core/types.js'
import type { MarketClient } from '../../../sdk/index.js'
import { backoffDelay } from '../../../util/backoff.js'
import { detect, midpointOf, shown, type Alert, type Observation, type WatchState } from './conditions.js'
import { stateFromAlerts } from './history.js'
import { missedPrices } from './missed.js'
import { observationsOf } from './observe.js'
import type { WatchConfig } from './options.js'
import { resolveTarget, type WatchTarget } from './target.js'
import { routeOf } from './watch-route.js'

/** What a watch runs with. */
export interface WatchDeps {
  readonly pm: MarketClient
  readonly intake: EventIntake
  readonly jobs: JobsView
  readonly log: Logger
  readonly clock: Clock
  readonly signal: AbortSignal
}

/** Runs the watch until `deps.signal` aborts. */
export async function runWatch(name: string, config: WatchConfig, deps: WatchDeps): Promise<void> {
  const { pm, log, signal } = deps
  const route = routeOf(name)
  const target = await retrying(() => resolveTarget(pm, config.market, signal), deps, name)
  if (target === undefined) return
  const stored = await retrying(() => deps.jobs.list({ route }), deps, name)
  if (stored === undefined) return
  const state = stateFromAlerts(stored)
  log.info('[market] watching', { watch: name, market: typeof config.market === 'string' ? config.market : target.priceToken, alerts_stored: stored.length })
  // After a restart, what happened while the gateway was down: the price history since the last stored alert
  // (a crossing that reverted is only there), then the first book, each compared with what the alerts say.
  let late = stored.length > 0
  let top: { bid: number | null; ask: number | null } = { bid: null, ask: null }
  let pausedUntil = 0
  // When the watch last looked, as far as it knows: its last stored alert, then each observation.
  let lastAt = stored.reduce((at, job) => Math.max(at, job.receivedAt), 0)

  const hand = async (alert: Alert, state: WatchState): Promise<void> => {
    if (deps.clock() < pausedUntil) return
    const payload = payloadOf(name, target, alert, top)
    const result = await deps.intake.admit({ route, type: alert.kind, deliveryId: alert.deliveryId, payload, link: target.page })
    if (result.status === 'accepted' || result.status === 'duplicate') return alert.commit(state)
    // Not committed: the same alert, under the same id, is detected again at the next update.
    if (result.status === 'rate_limited') pausedUntil = deps.clock() + result.retryAfterSeconds * 1000
    log.warn('[market] alert not taken; it is tried again at the next update while its condition holds', { watch: name, alert: alert.deliveryId, why: result.status })
  }
  const look = async (obs: Observation, found: boolean): Promise<void> => {
    if (obs.kind === 'top' && obs.fromHistory !== true) top = { bid: obs.bid, ask: obs.ask }
    lastAt = Math.max(lastAt, obs.at)
    for (const alert of detect(state, config.when, obs, found)) await hand(alert, state)
  }
  const catchUp = async (): Promise<void> => {
    if (lastAt === 0) return
    try {
      for (const obs of await missedPrices(pm, target, lastAt, deps.clock(), signal)) await look(obs, true)
    } catch (err) {
      if (signal.aborted) return
      log.warn('[market] the price history could not be read: a crossing or move that reverted while the watch was not looking may go unalerted', { watch: name, reason: messageOf(err) })
    }
  }

  if (late) await catchUp()
  for await (const event of pm.watch(target.tokenIds, { signal, customFeatures: true, backfill: true })) {
    if (event.type === 'reconnected') {
      log.warn('[market] stream reconnected: the price history of the gap, then the next book, are compared with what the watch saw', { watch: name, reason: event.reason })
      late = true
      await catchUp()
      continue
    }
    if (event.type === 'gap_unfilled') log.warn('[market] trades of a reconnect gap could not be fetched: a big trade in it may go unalerted', { watch: name, reason: event.reason })
    for (const obs of observationsOf(event, target, deps.clock())) {
      await look(obs, obs.kind === 'top' ? late : obs.kind === 'trade' && obs.backfilled === true)
      if (obs.kind === 'top') late = false
    }
  }
}

/** The job's payload: what the templates see. */
function payloadOf(watch: string, target: WatchTarget, alert: Alert, top: { bid: number | null; ask: number | null }): JsonObject {
  const mid = midpointOf(top.bid, top.ask)
  return {
    watch,
    market: target.fields,
    alert: alert.fields,
    book: {
      best_bid: top.bid, best_ask: top.ask,
      midpoint: mid === undefined ? null : shown(mid),
      spread: top.bid === null || top.ask === null ? null : shown(top.ask - top.bid),
    },
  }
}

/** `work` until it succeeds or the watch stops (undefined); failures are logged and retried with backoff. */
async function retrying<T>(work: () => Promise<T>, deps: WatchDeps, name: string): Promise<T | undefined> {
  for (let attempt = 1; !deps.signal.aborted; attempt++) {
    try {
      return await work()
    } catch (err) {
      if (deps.signal.aborted) return undefined
      const waitMs = backoffDelay({ baseDelayMs: 1000, maxDelayMs: 60_000 }, attempt)
      deps.log.warn('[market] cannot start the watch; trying again', { watch: name, reason: messageOf(err), retry_in_seconds: Math.round(waitMs / 1000) })
      await new Promise<void>((done) => {
        const timer = setTimeout(done, waitMs)
        deps.signal.addEventListener('abort', () => { clearTimeout(timer); done() }, { once: true })
      })
    }
  }
  return undefined
}
