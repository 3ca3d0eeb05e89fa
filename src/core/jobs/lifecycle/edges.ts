/**
 * The drawing of the job lifecycle: every edge the transitions (transitions.ts, groups.ts) take, as data.
 * docs/durability.md draws exactly these, and a test keeps the two equal.
 */
import type { JobState } from '../../job-state.js'


/** Where an edge starts: a state, or `accepted` for an event not yet stored. */
export type EdgeStart = JobState | 'accepted'
/** Where an edge ends: a state, or `deleted` for a purge. */
export type EdgeEnd = JobState | 'deleted'

/** One edge of the lifecycle: the function that takes it and the states it joins. */
export interface Edge {
  readonly from: EdgeStart
  readonly to: EdgeEnd
  /** What takes the edge, as docs/durability.md labels it: a function of this module, or `purge`. */
  readonly via: string
}

/**
 * Every edge of a job's life. docs/durability.md draws exactly these (a test compares the two), and a test
 * applies each function to a record in `from` and checks that it lands in `to`.
 */
export const EDGES: readonly Edge[] = [
  { from: 'accepted', to: 'queued', via: 'accepted' },
  { from: 'queued', to: 'queued', via: 'joinGroup' },
  { from: 'queued', to: 'superseded', via: 'superseded' },
  { from: 'queued', to: 'skipped', via: 'closeGroup' },
  { from: 'queued', to: 'skipped', via: 'closed' },
  { from: 'running', to: 'skipped', via: 'closed' },
  { from: 'queued', to: 'running', via: 'leased' },
  { from: 'running', to: 'running', via: 'answered' },
  { from: 'running', to: 'running', via: 'progressed' },
  { from: 'running', to: 'running', via: 'used' },
  { from: 'running', to: 'running', via: 'outdated' },
  { from: 'running', to: 'done', via: 'finished' },
  { from: 'running', to: 'skipped', via: 'finished' },
  { from: 'running', to: 'superseded', via: 'finished' },
  { from: 'running', to: 'failed', via: 'finished' },
  { from: 'running', to: 'queued', via: 'finished' },
  { from: 'running', to: 'queued', via: 'recovered' },
  { from: 'running', to: 'superseded', via: 'recovered' },
  { from: 'failed', to: 'queued', via: 'queuedAgain' },
  { from: 'failed', to: 'queued', via: 'retried' },
  { from: 'done', to: 'queued', via: 'retried' },
  { from: 'skipped', to: 'queued', via: 'retried' },
  { from: 'superseded', to: 'queued', via: 'retried' },
  { from: 'failed', to: 'queued', via: 'rerun' },
  { from: 'done', to: 'queued', via: 'rerun' },
  { from: 'skipped', to: 'queued', via: 'rerun' },
  { from: 'superseded', to: 'queued', via: 'rerun' },
  { from: 'failed', to: 'queued', via: 'resent' },
  { from: 'done', to: 'queued', via: 'resent' },
  { from: 'skipped', to: 'queued', via: 'resent' },
  { from: 'superseded', to: 'queued', via: 'resent' },
  { from: 'done', to: 'done', via: 'keyMoved' },
  { from: 'skipped', to: 'skipped', via: 'keyMoved' },
  { from: 'superseded', to: 'superseded', via: 'keyMoved' },
  { from: 'done', to: 'deleted', via: 'purgeable' },
  { from: 'skipped', to: 'deleted', via: 'purgeable' },
  { from: 'superseded', to: 'deleted', via: 'purgeable' },
  { from: 'failed', to: 'deleted', via: 'purgeable' },
]
