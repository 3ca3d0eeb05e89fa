/**
 * The market source's detection, as pure functions: crossings with hysteresis, moves within a window, and the
 * state a restart rebuilds from the stored alerts' delivery ids.
 */
import { describe, expect, it } from 'vitest'
import { detect, freshState, type Observation, type WatchState } from '../../src/plugins/sources/market/conditions.js'
import { stateFromAlerts } from '../../src/plugins/sources/market/history.js'
import type { ConditionConfig } from '../../src/plugins/sources/market/options.js'

const top = (mid: number, at = 0): Observation => ({ kind: 'top', bid: mid - 0.01, ask: mid + 0.01, at })

/** Feeds midpoints; every alert is taken (committed); resolves the delivery ids. */
function run(state: WatchState, conditions: ConditionConfig[], mids: readonly number[], step = 1000): string[] {
  return mids.flatMap((mid, i) => detect(state, conditions, top(mid, i * step)).map((a) => {
    a.commit(state)
    return a.deliveryId
  }))
}

describe('market conditions', () => {
  it('alerts once per real crossing of a level while the price wobbles on it', () => {
    const ids = run(freshState(), [{ price_crosses: [0.5] }], [0.4, 0.515, 0.495, 0.505, 0.492, 0.508, 0.48, 0.505, 0.511])
    expect(ids).toEqual(['price_crosses/0.5/up/1', 'price_crosses/0.5/down/2', 'price_crosses/0.5/up/3'])
  })

  it('gives a one-tick wobble on the band\'s edges at most one alert each way (the edges are inside the band)', () => {
    // 0.49 <-> 0.51 around 0.5 at the default hysteresis of 0.01: the commonest wobble at a tick size of 0.01.
    const wobble = [0.49, 0.51, 0.49, 0.51, 0.49, 0.51, 0.49, 0.51, 0.49, 0.51, 0.49]
    const ids = run(freshState(), [{ price_crosses: [0.5] }], wobble)
    expect(ids.filter((id) => id.includes('/up/')).length).toBeLessThanOrEqual(1)
    expect(ids.filter((id) => id.includes('/down/')).length).toBeLessThanOrEqual(1)
    // Beyond the band, it is a crossing again.
    expect(run(freshState(), [{ price_crosses: [0.5] }], [0.49, 0.52, 0.48])).toEqual(['price_crosses/0.5/up/1', 'price_crosses/0.5/down/2'])
  })

  it('takes the first midpoint as the baseline, not as a crossing', () => {
    expect(run(freshState(), [{ price_crosses: [0.25, 0.75] }], [0.9])).toEqual([])
  })

  it('alerts a move within the window once, and measures the next from where it alerted', () => {
    const c: ConditionConfig[] = [{ midpoint_moves: 0.05, within_seconds: 10 }]
    expect(run(freshState(), c, [0.30, 0.32, 0.36, 0.37, 0.40, 0.42])).toEqual(['midpoint_moves/1', 'midpoint_moves/2'])
    // Slower than the window: the old midpoints have left it.
    expect(run(freshState(), c, [0.30, 0.33, 0.36, 0.39], 6000)).toEqual([])
  })

  it('leaves the state as it was when an alert is not taken, so it is detected again under the same id', () => {
    const state = freshState()
    run(state, [{ price_crosses: [0.5] }], [0.4])
    const first = detect(state, [{ price_crosses: [0.5] }], top(0.6)).map((a) => a.deliveryId)
    const again = detect(state, [{ price_crosses: [0.5] }], top(0.61)).map((a) => a.deliveryId)
    expect(again).toEqual(first)
  })

  it('rebuilds each level from the newest stored crossing, whatever the order of the records', () => {
    const state = stateFromAlerts([
      { deliveryId: 'price_crosses/0.5/down/2' }, { deliveryId: 'price_crosses/0.5/up/1' }, { deliveryId: 'midpoint_moves/4' },
      { deliveryId: 'trade_size_over/0xab' }, { deliveryId: 'resolved' },
    ])
    expect(state.levels.get('0.5')).toEqual({ side: 'below', crossings: 2 })
    expect(state.moves).toBe(4)
    expect(state.resolved).toBe(true)
    expect(detect(state, [{ price_crosses: [0.5] }], top(0.55), true).map((a) => [a.deliveryId, a.fields['late']])).toEqual([['price_crosses/0.5/up/3', true]])
  })
})
