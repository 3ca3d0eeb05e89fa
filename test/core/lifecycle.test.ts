/**
 * The lifecycle is a checked artefact: docs/durability.md draws exactly the edges of the transitions module,
 * and each edge's function, applied to a record in its `from` state, lands in its `to` state.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { JobOutcome } from '../../src/core/jobs/lifecycle/state-backend.js'
import type { JobRecord } from '../../src/core/jobs/lifecycle/job-record.js'
import type { JobState } from '../../src/core/job-state.js'
import * as transitions from '../../src/core/jobs/lifecycle/transitions.js'
import * as groups from '../../src/core/jobs/lifecycle/groups.js'
import { EDGES, type EdgeEnd, type EdgeStart } from '../../src/core/jobs/lifecycle/edges.js'
import { newJob } from '../../src/testing/state-backend.js'
import { leasedRecord } from '../fixtures/dispatch.js'

const T = 1_000_000

/** The edges docs/durability.md draws, as `from to via` lines. */
function drawn(): string[] {
  const doc = readFileSync(new URL('../../docs/durability.md', import.meta.url), 'utf8')
  const block = /<!-- lifecycle:begin -->([\s\S]*?)<!-- lifecycle:end -->/.exec(doc)?.[1] ?? ''
  return [...block.matchAll(/^\s*(\S+)\s*-->\s*(\S+)\s*:\s*(\w+)\s*$/gm)].map(([, from, to, via]) =>
    `${from === '[*]' ? 'accepted' : from} ${to === '[*]' ? 'deleted' : to} ${via}`,
  )
}

/** The lifecycle's functions: transitions.ts's edges and rules, and groups.ts's (a concurrency group's edges). */
const lifecycle = { ...transitions, ...groups }

const record = (state: JobState, extra: Partial<JobRecord> = {}): JobRecord =>
  leasedRecord({ state, finishedAt: lifecycle.isFinal(state) ? T : undefined, ...extra })
const outcomes: JobOutcome[] = [
  { kind: 'done' }, { kind: 'skipped', reason: 's' }, { kind: 'superseded', reason: 's', by: '9' }, { kind: 'failed', reason: 'r' },
  { kind: 'retry', at: T + 1, reason: 'r' }, { kind: 'wait', at: T + 1, reason: 'w' }, { kind: 'interrupted' },
]
const GROUP = { key: 'r\u0000o/r#1', debounceMs: 10, maxWaitMs: 100 }
const past = { doneBefore: T + 1, failedBefore: T + 1 }

/** Where each edge function takes a record in `from` (every end it can reach). */
const reach: Record<string, (from: EdgeStart) => EdgeEnd[]> = {
  accepted: () => [lifecycle.accepted(newJob('a'), '1', T).state],
  leased: (from) => [lifecycle.leased(record(from as JobState), T).state],
  answered: (from) => [lifecycle.answered(record(from as JobState), 'text', T).state],
  progressed: (from) => [lifecycle.progressed(record(from as JobState), 2, T).state],
  used: (from) => [lifecycle.used(record(from as JobState), { inputTokens: 1, outputTokens: 2 }, T).state],
  finished: (from) => outcomes.map((o) => lifecycle.finished(record(from as JobState), o, T).state),
  recovered: (from) => [lifecycle.recovered(record(from as JobState), T).state, lifecycle.recovered(record(from as JobState, { supersededBy: '9' }), T).state],
  joinGroup: (from) => [lifecycle.joinGroup(record(from as JobState), GROUP, [], T).job.state],
  closeGroup: (from) => [lifecycle.closeGroup(record(from as JobState), { ...GROUP, closes: true }, [], T).job.state],
  closed: (from) => [lifecycle.closed(record(from as JobState), '9', T).state],
  superseded: (from) => [lifecycle.superseded(record(from as JobState), '9', T).state],
  outdated: (from) => [lifecycle.outdated(record(from as JobState), '9', T).state],
  queuedAgain: (from) => [lifecycle.queuedAgain(record(from as JobState), T).state],
  retried: (from) => [lifecycle.retried(record(from as JobState), T).state],
  rerun: (from) => [lifecycle.rerun(record(from as JobState), T).state],
  resent: (from) => [lifecycle.resent({ ...record(from as JobState), stage: 'deliver', answer: 'the answer' }, T).state],
  keyMoved: (from) => [lifecycle.keyMoved(record(from as JobState)).state],
  purgeable: (from) => (lifecycle.purgeable(record(from as JobState), past) ? ['deleted'] : [from as JobState]),
}

/** Exports of the module that are not edges: decisions and rules the edges use, and the drawing itself. */
const NOT_EDGES = ['isFinal', 'leasable', 'groupWait', 'leaseOrder', 'expired', 'EXPIRED', 'takeTurn', 'turnOf', 'decide', 'admit', 'refusal', 'crashLoop', 'purgeCutoff', 'retentionCutoff', 'checkedRetention', 'DEDUP_WINDOW_MS', 'MAX_RUNS', 'EDGES', 'CLOSED', 'closingMark', 'isClosingMark']

describe('the job lifecycle', () => {
  it('docs/durability.md draws exactly the edges of the transitions module', () => {
    expect(drawn().sort()).toEqual(EDGES.map((e) => `${e.from} ${e.to} ${e.via}`).sort())
  })

  it('every edge function lands where its edge says, and reaches no state the edges do not list', () => {
    for (const edge of EDGES) expect(reach[edge.via]?.(edge.from), `${edge.via} from ${edge.from}`).toContain(edge.to)
    const froms = new Set(EDGES.map((e) => `${e.via} ${e.from}`))
    for (const key of froms) {
      const [via = '', from = ''] = key.split(' ')
      for (const to of reach[via]?.(from as EdgeStart) ?? []) {
        const listed = EDGES.some((e) => e.via === via && e.from === from && e.to === to)
        // purgeable of a record it does not delete stays put: not an edge.
        if (to !== from || via !== 'purgeable') expect(listed, `${via}: ${from} --> ${to} is reachable but not an edge`).toBe(true)
      }
    }
  })

  it('every function the lifecycle modules export is an edge, or one of the rules the edges use', () => {
    const exported = Object.keys(lifecycle).filter((name) => !NOT_EDGES.includes(name))
    expect(exported.sort()).toEqual([...new Set(EDGES.map((e) => e.via))].sort())
  })

  it('a lease counts one try; saving the answer moves to stage deliver with a fresh count; an interrupted try is not counted', () => {
    const queued = lifecycle.accepted(newJob('a'), '1', T)
    const running = lifecycle.leased(queued, T)
    expect(running.attempts).toBe(1)
    expect(lifecycle.answered(lifecycle.leased(running, T), 'x', T)).toMatchObject({ stage: 'deliver', answer: 'x', attempts: 1, progress: 0 })
    expect(lifecycle.finished(running, { kind: 'interrupted' }, T).attempts).toBe(0)
    expect(lifecycle.recovered(running, T).attempts).toBe(1)
  })

  it('admit decides again at the write: a live or recent holder is a duplicate even when the queue is full; otherwise room is needed', () => {
    const live = lifecycle.leased(lifecycle.accepted(newJob('a'), '7', T), T)
    expect(lifecycle.admit({ holder: live, windowMs: 10, now: T, queued: 5, maxQueue: 5 })).toEqual({ kind: 'duplicate', id: '7' })
    const failed = lifecycle.finished(live, { kind: 'failed', reason: 'r' }, T)
    expect(lifecycle.admit({ holder: failed, windowMs: 10, now: T, queued: 0, maxQueue: 5 })).toEqual({ kind: 'requeue', job: failed })
    expect(lifecycle.admit({ holder: failed, windowMs: 10, now: T, queued: 5, maxQueue: 5 })).toEqual({ kind: 'full' })
    const done = lifecycle.finished(live, { kind: 'done' }, T)
    expect(lifecycle.admit({ holder: done, windowMs: 10, now: T + 9, queued: 0, maxQueue: 5 }).kind).toBe('duplicate')
    expect(lifecycle.admit({ holder: done, windowMs: 10, now: T + 10, queued: 0, maxQueue: 5 }).kind).toBe('insert')
  })

  it('purge never cuts into the window; a retention shorter than the window is refused', () => {
    const cutoff = lifecycle.purgeCutoff(T, T, 100)
    expect(lifecycle.purgeable({ state: 'done', finishedAt: T - 50 }, cutoff)).toBe(false)
    expect(lifecycle.purgeable({ state: 'done', finishedAt: T - 150 }, cutoff)).toBe(true)
    expect(lifecycle.purgeable({ state: 'failed', finishedAt: T - 50 }, cutoff)).toBe(true)
    expect(lifecycle.purgeable({ state: 'queued', finishedAt: undefined }, cutoff)).toBe(false)
    expect(() => lifecycle.checkedRetention({ windowMs: 100, keepDoneMs: 99 })).toThrow(/shorter than the de-dup window/)
    expect(lifecycle.checkedRetention({ windowMs: 100, keepDoneMs: 100 })).toMatchObject({ keepDoneMs: 100, windowMs: 100 })
  })
})
