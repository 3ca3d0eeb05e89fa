/**
 * What a watch detects, as pure functions over its state: an observation of the market (the top of the book, a
 * trade, the resolution) in, the alerts it makes out. An alert changes the state only through its `commit`,
 * which the watcher runs once the gateway stored the alert (or found it stored already): an alert the gateway
 * refused (the rate limit, a store outage) is detected again at the next observation, under the same id.
 */
import type { JsonObject } from '../../../core/types.js'
import { DEFAULT_HYSTERESIS, type ConditionConfig } from './options.js'

/** Where the midpoint is against a level, once it left the level's band. */
export type Side = 'above' | 'below'

/** A level of `price_crosses`: its side, and how many crossings of it were alerted (the next one's number). */
export interface LevelState {
  side: Side
  crossings: number
}

/** What a watch has seen. */
export interface WatchState {
  /** By level (`"0.5"`). */
  readonly levels: Map<string, LevelState>
  /** Alerts of `midpoint_moves` so far (the next one's number). */
  moves: number
  /** The midpoints inside the move window, oldest first; it restarts at each move alerted. */
  window: { at: number; mid: number }[]
  resolved: boolean
}

/** Something the stream told about the watched market. */
export type Observation =
  | { readonly kind: 'top'; readonly bid: number | null; readonly ask: number | null; readonly at: number; readonly fromHistory?: boolean }
  | { readonly kind: 'trade'; readonly id: string; readonly price: number; readonly size: number; readonly side: string; readonly at: number; readonly backfilled?: boolean }
  | { readonly kind: 'resolved'; readonly outcome: string | null; readonly at: number }

/** The kinds of condition, as event types. */
export type ConditionKind = 'midpoint_moves' | 'price_crosses' | 'trade_size_over' | 'resolved'

/** A condition met. */
export interface Alert {
  readonly kind: ConditionKind
  /** Names the occurrence (the watch's route is the rest of the de-dup key): a re-detection is a duplicate. */
  readonly deliveryId: string
  /** `alert.*` of the templates. */
  readonly fields: JsonObject
  /** Applies the alert to the state, once the gateway holds it. */
  commit(state: WatchState): void
}

/** An empty state. */
export function freshState(): WatchState {
  return { levels: new Map(), moves: 0, window: [], resolved: false }
}

/** The midpoint of a top of book; undefined while a side is empty. */
export function midpointOf(bid: number | null, ask: number | null): number | undefined {
  return bid === null || ask === null ? undefined : (bid + ask) / 2
}

/** A price as alerts show it: at most four decimals. */
export const shown = (n: number): number => Math.round(n * 10_000) / 10_000

const EPSILON = 1e-9

/**
 * The alerts `obs` makes under `conditions`. `late` marks the first observation after a restart or a reconnect:
 * what it finds happened while the watch was not looking, and says so.
 */
export function detect(state: WatchState, conditions: readonly ConditionConfig[], obs: Observation, late = false): Alert[] {
  const when = new Date(obs.at).toISOString()
  const alerts: Alert[] = []
  const note = late ? ' (found late: it happened while the watch was not connected)' : ''
  for (const c of conditions) {
    if (obs.kind === 'top') {
      const mid = midpointOf(obs.bid, obs.ask)
      if (mid === undefined) continue
      if (c.price_crosses !== undefined) alerts.push(...crossings(state, c.price_crosses, c.hysteresis ?? DEFAULT_HYSTERESIS, mid, when, late, note))
      if (c.midpoint_moves !== undefined && c.within_seconds !== undefined) {
        const move = moved(state, c.midpoint_moves, c.within_seconds, mid, obs.at, when, late, note)
        if (move) alerts.push(move)
      }
    } else if (obs.kind === 'trade' && c.trade_size_over !== undefined && obs.size > c.trade_size_over) {
      alerts.push({
        kind: 'trade_size_over',
        deliveryId: `trade_size_over/${obs.id}`,
        fields: {
          condition: 'trade_size_over', from: shown(obs.price), to: shown(obs.price), size: obs.size, side: obs.side, when, late,
          summary: `a trade of ${obs.size.toLocaleString('en-US')} shares (${obs.side}) at ${shown(obs.price)}, over ${c.trade_size_over.toLocaleString('en-US')}${note}`,
        },
        commit: () => {},
      })
    } else if (obs.kind === 'resolved' && c.resolved === true && !state.resolved) {
      alerts.push({
        kind: 'resolved',
        deliveryId: 'resolved',
        fields: { condition: 'resolved', outcome: obs.outcome, when, late, summary: `the market resolved${obs.outcome === null ? '' : `: ${obs.outcome}`}${note}` },
        commit: (s) => {
          s.resolved = true
        },
      })
    }
  }
  return alerts
}

/**
 * Crossings of `levels`: a level is crossed when the midpoint goes beyond its band (± `band`) on the other side.
 * The band's edges are inside it: at the default band of one tick (0.01), a price wobbling 0.49 ↔ 0.51 around 0.5
 * is the commonest wobble there is, and counting the edges as leaving made it alert on every tick.
 */
function crossings(state: WatchState, levels: readonly number[], band: number, mid: number, when: string, late: boolean, note: string): Alert[] {
  const alerts: Alert[] = []
  for (const level of levels) {
    const key = String(level)
    const known = state.levels.get(key)
    if (known === undefined) {
      // The first midpoint a watch sees is its baseline: it tells where each level stands, not that one was crossed.
      state.levels.set(key, { side: mid >= level ? 'above' : 'below', crossings: 0 })
      continue
    }
    const up = known.side === 'below' && mid > level + band + EPSILON
    const down = known.side === 'above' && mid < level - band - EPSILON
    if (!up && !down) continue
    const direction = up ? 'up' : 'down'
    const n = known.crossings + 1
    alerts.push({
      kind: 'price_crosses',
      deliveryId: `price_crosses/${key}/${direction}/${n}`,
      fields: {
        condition: 'price_crosses', level, direction, from: shown(level), to: shown(mid), when, late,
        summary: `the price crossed ${level} ${up ? 'upward' : 'downward'}, now ${shown(mid)}${note}`,
      },
      commit: (s) => {
        s.levels.set(key, { side: up ? 'above' : 'below', crossings: n })
      },
    })
  }
  return alerts
}

/** A move of at least `size` between a midpoint of the last `seconds` and this one. */
function moved(state: WatchState, size: number, seconds: number, mid: number, at: number, when: string, late: boolean, note: string): Alert | undefined {
  state.window = state.window.filter((s) => s.at >= at - seconds * 1000)
  let farthest: { at: number; mid: number } | undefined
  for (const s of state.window) if (farthest === undefined || Math.abs(mid - s.mid) > Math.abs(mid - farthest.mid)) farthest = s
  state.window.push({ at, mid })
  if (farthest === undefined || Math.abs(mid - farthest.mid) < size - EPSILON) return undefined
  const n = state.moves + 1
  const up = mid > farthest.mid
  const minutes = Math.max(1, Math.round((at - farthest.at) / 60_000))
  return {
    kind: 'midpoint_moves',
    deliveryId: `midpoint_moves/${n}`,
    fields: {
      condition: 'midpoint_moves', direction: up ? 'up' : 'down', from: shown(farthest.mid), to: shown(mid), when, late,
      summary: `the midpoint moved ${up ? 'up' : 'down'} ${shown(Math.abs(mid - farthest.mid))} within ${minutes} minute${minutes === 1 ? '' : 's'}: ${shown(farthest.mid)} → ${shown(mid)}${note}`,
    },
    commit: (s) => {
      s.moves = n
      // The next move is measured from here: one move, one alert.
      s.window = [{ at, mid }]
    },
  }
}
