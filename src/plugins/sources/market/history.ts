/**
 * A watch's state rebuilt from the alerts it already stored. The jobs of a watch's route are the record of what
 * it alerted (each job's delivery id names its crossing), kept by whatever state backend the gateway uses, in
 * the same write as the alert: so a restart, even after `kill -9`, knows each level's side and each count
 * exactly as far as the stored alerts go, and an alert detected but not stored is detected again.
 */
import type { JobRecord } from '../../../core/jobs/lifecycle/job-record.js'
import { freshState, type WatchState } from './conditions.js'

const CROSSING = /^price_crosses\/([0-9.]+)\/(up|down)\/(\d+)$/
const MOVE = /^midpoint_moves\/(\d+)$/

/** The state the stored alerts of a watch leave (any order; the highest number of each level wins). */
export function stateFromAlerts(records: readonly Pick<JobRecord, 'deliveryId'>[]): WatchState {
  const state = freshState()
  for (const { deliveryId } of records) {
    const crossing = CROSSING.exec(deliveryId)
    if (crossing) {
      const [, level = '', direction, count = '0'] = crossing
      const n = Number(count)
      const known = state.levels.get(level)
      if (known === undefined || known.crossings < n) state.levels.set(level, { side: direction === 'up' ? 'above' : 'below', crossings: n })
      continue
    }
    const move = MOVE.exec(deliveryId)
    if (move) state.moves = Math.max(state.moves, Number(move[1]))
    else if (deliveryId === 'resolved') state.resolved = true
  }
  return state
}
