/**
 * What a route remembers of its last review of a pull request, whatever the code host: the head it reviewed, the
 * base, and its open findings, short (a place, a severity, a title,
 * the host's thread). A target keeps it in the state store's notes after the review is posted, and the next
 * review's prompt is given it (`{review.previous_head}`, `{review.open_findings}`), so the agent can review only
 * the commits since and not raise again what is fixed or answered.
 *
 * A finding is known across reviews by its key: its file and its title (or its body's first line), not its line
 * (lines move as commits land) nor its severity (an agent may grade it differently the next time).
 */
import { createHash } from 'node:crypto'
import type { JsonValue } from '../context-types.js'
import type { Finding, Severity, Side } from './document.js'
import { SEVERITIES, SIDES } from './schema.js'

/** How a review covered the pull request: the whole change, or only the commits since the last reviewed head. */
export type ReviewMode = 'full' | 'incremental'

/** A finding as remembered: enough to name it, never its body. */
export interface NotedFinding {
  readonly key: string
  readonly path: string
  readonly line: number
  readonly side: Side
  readonly severity: Severity
  readonly title: string
  /** The code host's thread of its inline comment (GitHub: `PRRT_…`), when it has one. */
  readonly thread?: string | undefined
}

/** A route's memory of its last review of one pull request. */
export interface ReviewMemory {
  readonly head: string
  readonly base: string
  /** The findings still open after that review, most severe first, at most {@link MAX_NOTED_FINDINGS}. */
  readonly findings: readonly NotedFinding[]
}

/** Findings remembered at most: a note is a summary, and the prompt's list must stay short. */
export const MAX_NOTED_FINDINGS = 100

/** Characters of a title kept. */
const MAX_TITLE = 120

/** A finding's title: its own, else its body's first non-empty line, on one line and short. */
export function findingTitle(finding: Pick<Finding, 'title' | 'body'>): string {
  const text = finding.title ?? finding.body.split('\n').find((line) => line.trim() !== '') ?? ''
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > MAX_TITLE ? `${flat.slice(0, MAX_TITLE - 1)}…` : flat
}

/** The key a finding is known by across reviews: 16 hex digits of its path and title (case and spacing ignored). */
export function findingKey(finding: Pick<Finding, 'path' | 'title' | 'body'>): string {
  const title = findingTitle(finding).toLowerCase()
  return createHash('sha256').update(`${finding.path}\0${title}`).digest('hex').slice(0, 16)
}

/** A finding as remembered (`thread`: its host thread, when known). */
export function notedFinding(finding: Finding, thread?: string): NotedFinding {
  return {
    key: findingKey(finding), path: finding.path, line: finding.line, side: finding.side, severity: finding.severity, title: findingTitle(finding),
    ...(thread === undefined ? {} : { thread }),
  }
}

/** The memory as a note's value (findings cut to {@link MAX_NOTED_FINDINGS}, most severe first). */
export function memoryValue(memory: ReviewMemory): JsonValue {
  const findings = [...memory.findings]
    .sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity))
    .slice(0, MAX_NOTED_FINDINGS)
    .map((f) => ({ key: f.key, path: f.path, line: f.line, side: f.side, severity: f.severity, title: f.title, ...(f.thread === undefined ? {} : { thread: f.thread }) }))
  return { v: 1, head: memory.head, base: memory.base, findings }
}

/** A note's value read back as a memory; undefined for none, or one this version cannot read (it is then written anew). */
export function readMemory(value: JsonValue | undefined): ReviewMemory | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value['v'] !== 1) return undefined
  const { head, base, findings } = value
  if (typeof head !== 'string' || typeof base !== 'string' || !Array.isArray(findings)) return undefined
  return { head, base, findings: findings.flatMap(readFinding) }
}

function readFinding(value: JsonValue): NotedFinding[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return []
  const { key, path, line, side, severity, title, thread } = value
  const known = typeof key === 'string' && typeof path === 'string' && typeof line === 'number' && typeof title === 'string' &&
    (SIDES as readonly unknown[]).includes(side) && (SEVERITIES as readonly unknown[]).includes(severity)
  if (!known) return []
  return [{ key, path, line, side: side as Side, severity: severity as Severity, title, ...(typeof thread === 'string' ? { thread } : {}) }]
}

/**
 * The open findings as the prompt shows them, one per line (`- major src/a.ts:12 (new file): Title`), or `none`.
 * Titles are the agent's own earlier words, shown as data: one line each, never a heading or a fence.
 */
export function openFindingsText(findings: readonly NotedFinding[]): string {
  if (findings.length === 0) return 'none'
  return findings
    .map((f) => `- ${f.severity} ${f.path}:${f.line}${f.side === 'LEFT' ? ' (old file)' : ''}: ${f.title.replace(/`/g, "'")}`)
    .join('\n')
}

/** The prompt's `{review.*}` values, by their whole name. */
export function reviewVariables(values: { readonly head: string, readonly base: string, readonly previousHead: string | undefined, readonly mode: ReviewMode, readonly open: readonly NotedFinding[] }): Record<string, string> {
  return {
    'review.head': values.head,
    'review.base': values.base,
    'review.previous_head': values.previousHead ?? '',
    'review.mode': values.mode,
    'review.open_findings': openFindingsText(values.open),
  }
}
