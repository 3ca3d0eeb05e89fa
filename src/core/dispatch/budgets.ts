/**
 * Budgets: what runs may spend per pull request, per repository per UTC day and per installation per UTC
 * month, in US dollars or tokens. A run is started only when each of its budgets has room for it: its room is
 * reserved when its try begins (the largest cost its runner can reach where the runner bounds it, else
 * `costs.budgets.reserve_usd` / `reserve_tokens`) and settled to what it used when it ends. Spend and
 * reservations live in the state store's notes, changed by compare-and-set, so runs on every instance of a
 * shared store see each other's reservations and never spend past a budget together.
 *
 * A repository's policy file may tighten its pull requests' and its day's budgets (`budgets:` in docs/policy.md):
 * each limit is then the smaller of the config's and the policy's, and a policy's budget where the config sets
 * none applies too. The spend is the same note either way; only the limit it is held against differs.
 *
 * A reservation names its job and lasts until the run's timeout has surely passed. One its process never
 * settled (a `kill -9` during the run) is charged at its reserved amount when it runs out, or when its job runs
 * again, whichever comes first: the dead run may have spent up to it, and room must not stay held forever.
 */
import { updateNote, type NoteStore } from '../jobs/lifecycle/notes.js'
import type { JsonObject, JsonValue } from '../types.js'
import { totalTokens, type RunUsage, type UsageBound } from '../usage.js'
import { budgetSubjects, type BudgetKind, type BudgetSubject } from './budget-subjects.js'
import { BUDGETS_DEFAULTS, type CostsConfig } from '../config/costs-schema.js'

/** One budget's limit: US dollars, tokens, or both (the first reached refuses). */
export interface BudgetLimit {
  readonly usd?: number | undefined
  readonly tokens?: number | undefined
}

/** Budgets by kind: the config's (`costs.budgets`), or what a repository's policy file sets. */
export type BudgetLimits = Readonly<Partial<Record<BudgetKind, BudgetLimit>>>

/** The budgets a repository's policy file may tighten: its pull requests' and its day's (the month is the gateway's). */
export type RepositoryBudgets = { readonly [K in Exclude<BudgetKind, 'installation_month'>]?: BudgetLimit | undefined }

/** The budgets of a gateway (`costs.budgets`). */
export interface BudgetRules {
  /** The config's limits; empty when it sets none (a repository's policy may still set some). */
  readonly limits: BudgetLimits
  /** A warning is logged once per budget and period when its spend reaches this fraction of the limit. */
  readonly warnAt: number
  /** What a run reserves when its runner cannot bound its cost. */
  readonly reserve: { readonly usd: number; readonly tokens: number }
  /** How long a reservation is held at most: past the run's timeout, whatever happens to its process. */
  readonly holdMs: number
}

/** Room held for one run, to settle when it ends: in each budget's note, held against the limit it was reserved under. */
export interface Reservation {
  readonly job: string
  readonly held: ReadonlyArray<{ readonly key: string; readonly kind: BudgetKind; readonly limit: BudgetLimit }>
  readonly usd: number
  readonly tokens: number
}

/**
 * A budget that had no room: which, whose, when it renews (undefined: never, a pull request's), and whose limit
 * refused (`policy`: the repository's policy file set it lower than the config).
 */
export interface Refusal {
  readonly kind: BudgetKind
  readonly subject: string
  readonly reason: string
  readonly renewsAt: number | undefined
  readonly by: 'config' | 'policy'
}

/** What settling told: budgets that just passed the warning line. */
export interface Settled {
  readonly warnings: readonly string[]
}

/** The budgets over a note store. */
export interface Budgets {
  /**
   * Reserves room for job `job`'s run in each budget its payload is charged to, or says which one has none.
   * `repository`: the budgets the job's repository set in its policy file, each tightening the config's.
   */
  reserve(job: string, payload: JsonObject, bound: UsageBound | undefined, now: number, repository?: RepositoryBudgets): Promise<{ readonly reserved: Reservation } | { readonly refused: Refusal }>
  /** Replaces the run's reservation by what it used (the reservation itself when it reported nothing). */
  settle(reservation: Reservation, usage: RunUsage | undefined, now: number): Promise<Settled>
}

/** A budget's note: what was spent in its period, and the room runs hold now. */
interface BudgetNote {
  readonly spentUsd: number
  readonly spentTokens: number
  readonly reserved: Readonly<Record<string, { readonly usd: number; readonly tokens: number; readonly until: number }>>
  /** The warning was logged for this period. */
  readonly warned?: boolean | undefined
}

/** `costs.budgets` as the budgets take them (its defaults when the section is absent); `timeoutMs` bounds a reservation's hold. */
export function budgetRules(costs: CostsConfig, timeoutMs: number): BudgetRules {
  // Without a `budgets:` section its defaults apply: a repository's policy file may still set budgets.
  const b = costs.budgets ?? BUDGETS_DEFAULTS
  const limits: Partial<Record<BudgetKind, BudgetLimit>> = {}
  for (const kind of ['pull_request', 'repository_day', 'installation_month'] as const) {
    const l = b[kind]
    if (l !== undefined) limits[kind] = { usd: l.usd, tokens: l.tokens }
  }
  return {
    limits,
    warnAt: b.warn_at_percent / 100,
    reserve: { usd: b.reserve_usd, tokens: b.reserve_tokens },
    // Past the run's timeout (and the kill's grace) the run is surely over, whatever became of its process.
    holdMs: timeoutMs + 60_000,
  }
}

/** Whether `rules` hold any limit of the config's (a repository's policy file may add its own at each run). */
export function hasLimits(rules: BudgetRules): boolean {
  return Object.keys(rules.limits).length > 0
}

/** A limit of the config's and one of a repository's, the tighter of each (a policy only restricts), and whose it was. */
interface Effective {
  readonly limit: BudgetLimit
  readonly usdBy: 'config' | 'policy'
  readonly tokensBy: 'config' | 'policy'
}

function tighter(config: BudgetLimit | undefined, policy: BudgetLimit | undefined): Effective | undefined {
  if (config === undefined && policy === undefined) return undefined
  const pick = (a: number | undefined, b: number | undefined): [number | undefined, 'config' | 'policy'] =>
    b !== undefined && (a === undefined || b < a) ? [b, 'policy'] : [a, 'config']
  const [usd, usdBy] = pick(config?.usd, policy?.usd)
  const [tokens, tokensBy] = pick(config?.tokens, policy?.tokens)
  return { limit: { usd, tokens }, usdBy, tokensBy }
}

const DAY = 86_400_000

/** Where each budget's note lives, how long it is kept, and when its period renews. */
function period(kind: BudgetKind, subject: string, now: number): { key: string; ttlMs: number; renewsAt: number | undefined } {
  const d = new Date(now)
  if (kind === 'pull_request') return { key: `budget/pull_request/${subject}`, ttlMs: 90 * DAY, renewsAt: undefined }
  if (kind === 'repository_day') {
    const day = d.toISOString().slice(0, 10)
    return { key: `budget/repository_day/${subject}/${day}`, ttlMs: 2 * DAY, renewsAt: Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1) }
  }
  const month = d.toISOString().slice(0, 7)
  return { key: `budget/installation_month/${subject}/${month}`, ttlMs: 62 * DAY, renewsAt: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) }
}

function noteOf(value: JsonValue | undefined): BudgetNote {
  const o = typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {}
  const n = (x: JsonValue | undefined) => (typeof x === 'number' && Number.isFinite(x) && x >= 0 ? x : 0)
  const reserved: Record<string, { usd: number; tokens: number; until: number }> = {}
  const held = o.reserved
  if (typeof held === 'object' && held !== null && !Array.isArray(held)) {
    for (const [job, r] of Object.entries(held)) {
      if (typeof r === 'object' && r !== null && !Array.isArray(r)) reserved[job] = { usd: n(r.usd), tokens: n(r.tokens), until: n(r.until) }
    }
  }
  return { spentUsd: n(o.spentUsd), spentTokens: n(o.spentTokens), reserved, warned: o.warned === true }
}

function valueOf(note: BudgetNote): JsonValue {
  return { spentUsd: note.spentUsd, spentTokens: note.spentTokens, reserved: note.reserved, ...(note.warned === true ? { warned: true } : {}) }
}

/** The note with the reservations no run will settle any more (past `until`, or `job`'s own from an earlier run) charged. */
function charged(note: BudgetNote, now: number, job: string): BudgetNote {
  let { spentUsd, spentTokens } = note
  const reserved: Record<string, { usd: number; tokens: number; until: number }> = {}
  for (const [id, r] of Object.entries(note.reserved)) {
    if (r.until > now && id !== job) {
      reserved[id] = r
      continue
    }
    spentUsd += r.usd
    spentTokens += r.tokens
  }
  return { ...note, spentUsd, spentTokens, reserved }
}

const usd = (x: number) => `$${x.toFixed(4).replace(/0{1,2}$/, '')}`

/** Creates the budgets over `notes`. */
export function createBudgets(notes: NoteStore, rules: BudgetRules): Budgets {
  const applicable = (payload: JsonObject, repository: RepositoryBudgets): Array<BudgetSubject & Effective> =>
    budgetSubjects(payload).flatMap((s) => {
      const effective = tighter(rules.limits[s.kind], s.kind === 'installation_month' ? undefined : repository[s.kind])
      return effective === undefined ? [] : [{ ...s, ...effective }]
    })

  /** Gives back job `job`'s reservation in `key` without charging it (a later budget refused the run). */
  async function release(key: string, job: string, ttlMs: number): Promise<void> {
    await updateNote(notes, key, (current) => {
      const note = noteOf(current)
      if (!(job in note.reserved)) return { result: undefined }
      const reserved = { ...note.reserved }
      delete reserved[job]
      return { value: valueOf({ ...note, reserved }), result: undefined }
    }, { ttlMs })
  }

  return {
    async reserve(job, payload, bound, now, repository = {}) {
      const need = { usd: bound?.usd ?? rules.reserve.usd, tokens: bound?.tokens ?? rules.reserve.tokens }
      const taken: Array<{ key: string; kind: BudgetKind; limit: BudgetLimit; ttlMs: number }> = []
      for (const { kind, subject, limit, usdBy, tokensBy } of applicable(payload, repository)) {
        const { key, ttlMs, renewsAt } = period(kind, subject, now)
        const refused = await updateNote(notes, key, (current): { value?: JsonValue; result: { over: string; by: 'config' | 'policy' } | undefined } => {
          const before = noteOf(current)
          const note = charged(before, now, job)
          const held = Object.values(note.reserved)
          const heldUsd = held.reduce((sum, r) => sum + r.usd, 0)
          const heldTokens = held.reduce((sum, r) => sum + r.tokens, 0)
          const cleaned = Object.keys(note.reserved).length !== Object.keys(before.reserved).length
          const over =
            limit.usd !== undefined && note.spentUsd + heldUsd + need.usd > limit.usd + 1e-9
              ? { over: `${usd(note.spentUsd)} of ${usd(limit.usd)} spent, ${usd(heldUsd)} held by running reviews, and a run reserves ${usd(need.usd)}`, by: usdBy }
              : limit.tokens !== undefined && note.spentTokens + heldTokens + need.tokens > limit.tokens
                ? { over: `${note.spentTokens} of ${limit.tokens} tokens spent, ${heldTokens} held by running reviews, and a run reserves ${need.tokens}`, by: tokensBy }
                : undefined
          if (over !== undefined) return { ...(cleaned ? { value: valueOf(note) } : {}), result: over }
          const reserved = { ...note.reserved, [job]: { usd: need.usd, tokens: need.tokens, until: now + rules.holdMs } }
          return { value: valueOf({ ...note, reserved }), result: undefined }
        }, { ttlMs })
        if (refused !== undefined) {
          for (const t of taken) await release(t.key, job, t.ttlMs)
          const whose = kind === 'pull_request' ? `pull request ${subject}` : kind === 'repository_day' ? `repository ${subject} today (UTC)` : `${subject} this month (UTC)`
          const setting = refused.by === 'policy' ? `budgets.${kind} of the repository's policy file` : `costs.budgets.${kind}`
          return { refused: { kind, subject, renewsAt, by: refused.by, reason: `budget ${kind} of ${whose} has no room: ${refused.over} (${setting})` } }
        }
        taken.push({ key, kind, limit, ttlMs })
      }
      return { reserved: { job, held: taken.map(({ key, kind, limit }) => ({ key, kind, limit })), usd: need.usd, tokens: need.tokens } }
    },

    async settle(reservation, usage, now) {
      const warnings: string[] = []
      for (const { key, kind, limit } of reservation.held) {
        const { ttlMs } = period(kind, '', now)
        const warning = await updateNote(notes, key, (current) => {
          const note = noteOf(current)
          const mine = note.reserved[reservation.job]
          const reserved = { ...note.reserved }
          delete reserved[reservation.job]
          // What the run used; a cost or count it did not report is taken to be what it reserved.
          const spentUsd = usage?.costUsd ?? reservation.usd
          const spentTokens = usage === undefined ? reservation.tokens : totalTokens(usage)
          // Charged already (it ran out before this run ended, and another run's reserve charged it): only the rest.
          const already = mine === undefined
          const next: BudgetNote = {
            ...note,
            reserved,
            spentUsd: note.spentUsd + (already ? Math.max(0, spentUsd - reservation.usd) : spentUsd),
            spentTokens: note.spentTokens + (already ? Math.max(0, spentTokens - reservation.tokens) : spentTokens),
          }
          const full = Math.max(
            limit.usd ? next.spentUsd / limit.usd : 0,
            limit.tokens ? next.spentTokens / limit.tokens : 0,
          )
          const warn = full >= rules.warnAt && note.warned !== true
          const said = limit.usd !== undefined ? `${usd(next.spentUsd)} of ${usd(limit.usd)}` : `${next.spentTokens} of ${limit.tokens ?? 0} tokens`
          return { value: valueOf({ ...next, warned: warn || note.warned === true }), result: warn ? `budget ${key.slice('budget/'.length)} is ${Math.floor(full * 100 + 1e-9)} % used (${said})` : undefined }
        }, { ttlMs })
        if (warning !== undefined) warnings.push(warning)
      }
      return { warnings }
    },
  }
}
