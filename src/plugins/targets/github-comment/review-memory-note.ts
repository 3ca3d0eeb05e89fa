/**
 * Incremental reviews in review mode: per route and pull request, the last reviewed head and its open findings
 * are kept as a note in the state store (every instance on the store sees it, a restart keeps it). Before the
 * agent runs, the prompt is given them ({@link reviewPromptVariables}); after a review is posted, the route's
 * old threads whose finding was not raised again are resolved and the note is written
 * ({@link settleReview}).
 *
 * A review is `incremental` when the last reviewed head is an ancestor of the new one (GitHub's compare says
 * `ahead`); `full` on the first review, after a force-push or a rebase (`diverged`, `behind`, or the old head
 * gone), and when the route asks (`deliver_extra.incremental: "false"`).
 */
import type { Logger } from '../../../core/context-types.js'
import { messageOf } from '../../../core/errors.js'
import type { NoteStore } from '../../../core/note-types.js'
import { updateNote } from '../../../core/jobs/lifecycle/notes.js'
import type { ReviewDocument } from '../../../core/review/document.js'
import { findingKey, memoryValue, notedFinding, readMemory, reviewVariables, type NotedFinding, type ReviewMemory, type ReviewMode } from '../../../core/review/review-memory.js'
import type { ReviewApi } from './review-api.js'
import { ownOpenThreads, resolveOldThreads, type OwnThread } from './review-threads.js'

/** The note of `route`'s reviews of `repo`#`prNumber`. */
export function reviewNoteKey(route: string, repo: string, prNumber: string): string {
  return `review/${route}/${repo.toLowerCase()}#${prNumber}`
}

/** What the prompt and the settling of one review are told. */
export interface ReviewScope {
  readonly route: string
  readonly repo: string
  readonly prNumber: string
  /** Whether the route reviews incrementally (`deliver_extra.incremental`, `true` by default). */
  readonly incremental: boolean
  /** The state store's notes; undefined on a backend without (the gateway refuses such a route at start). */
  readonly notes: NoteStore | undefined
  readonly log: Logger
}

/** The remembered review of the scope's pull request, when the route reviews incrementally and one is kept. */
async function remembered(scope: ReviewScope): Promise<ReviewMemory | undefined> {
  if (!scope.incremental || scope.notes === undefined) return undefined
  return readMemory((await scope.notes.get(reviewNoteKey(scope.route, scope.repo, scope.prNumber)))?.value)
}

/**
 * The prompt's `{review.head}`, `{review.base}`, `{review.previous_head}`, `{review.mode}` and
 * `{review.open_findings}`: the pull request's head and base as GitHub reports them now, and the route's last
 * review of it. Two calls at most: the pull request, and the compare when a previous head is known.
 */
export async function reviewPromptVariables(api: ReviewApi, scope: ReviewScope): Promise<Record<string, string>> {
  const { head, base } = await api.pullCommits()
  const memory = await remembered(scope)
  let mode: ReviewMode = 'full'
  if (memory !== undefined && memory.head !== head.toLowerCase()) {
    const status = await api.compare(memory.head, head)
    mode = status === 'ahead' ? 'incremental' : 'full'
    scope.log.debug(`review scope: ${mode}`, { route: scope.route, previous: memory.head, head, compare: status })
  }
  return reviewVariables({ head: head.toLowerCase(), base: base.toLowerCase(), previousHead: memory?.head, mode, open: memory?.findings ?? [] })
}

/** What settling a posted review did. */
export interface Settled {
  readonly resolved: number
  /** Whether the note was written (false: already at this head, no store, or it failed and was logged). */
  readonly noted: boolean
}

/**
 * After `document`'s review of `head` is posted (and recorded under the lease): the route's open threads whose
 * finding is not raised again are resolved, unless a person replied in them; and the note remembers `head` and
 * the findings still open, each with its thread. Done once per head: a retry or a resend that finds the note at
 * `head` already does nothing. A failure here is logged, not thrown: the review stands, a thread left open is
 * resolved by the next review, and a note left at an older head only makes the next review's delta larger.
 */
export async function settleReview(api: ReviewApi, scope: ReviewScope, login: string, head: string, base: string, document: ReviewDocument): Promise<Settled> {
  const fields = { route: scope.route, repo: scope.repo, pr: scope.prNumber, head }
  let memory: ReviewMemory | undefined
  try {
    memory = await remembered(scope)
  } catch (err) {
    scope.log.warn('review memory could not be read; the old threads are still resolved', { ...fields, reason: messageOf(err) })
  }
  if (memory?.head === head) return { resolved: 0, noted: false }
  let threads: OwnThread[] = []
  let resolved = 0
  const raised = new Set(document.findings.map(findingKey))
  try {
    threads = await ownOpenThreads(api, scope.route, login)
    const resolution = await resolveOldThreads(api, threads, raised)
    resolved = resolution.resolved.length
    if (resolved > 0 || resolution.answered.length > 0) scope.log.info('old review threads settled', { ...fields, resolved, left_open_with_replies: resolution.answered.length })
  } catch (err) {
    scope.log.warn('old review threads could not all be resolved; the next review tries again', { ...fields, reason: messageOf(err) })
  }
  if (scope.notes === undefined || !scope.incremental) return { resolved, noted: false }
  const open = openFindings(document, threads, memory)
  try {
    await updateNote(scope.notes, reviewNoteKey(scope.route, scope.repo, scope.prNumber), () => ({ value: memoryValue({ head, base, findings: open }), result: undefined }))
  } catch (err) {
    scope.log.warn('review memory could not be written; the next review covers more commits', { ...fields, reason: messageOf(err) })
    return { resolved, noted: false }
  }
  return { resolved, noted: true }
}

/**
 * The findings open after the review: every finding it raised (with the thread that holds it, when one does), and
 * the earlier ones not raised again whose thread stays open because a person replied in it.
 */
function openFindings(document: ReviewDocument, threads: readonly OwnThread[], memory: ReviewMemory | undefined): NotedFinding[] {
  const threadOf = (key: string, path: string, line: number) =>
    threads.find((t) => t.key === key && t.path === path && t.line === line) ?? threads.find((t) => t.key === key)
  const raised = document.findings.map((finding) => {
    const key = findingKey(finding)
    return notedFinding(finding, threadOf(key, finding.path, finding.line)?.id)
  })
  const keys = new Set(raised.map((f) => f.key))
  const answered = new Set(threads.filter((t) => t.replied && !keys.has(t.key)).map((t) => t.key))
  const carried = (memory?.findings ?? []).filter((f) => answered.has(f.key))
  return [...raised, ...carried]
}
