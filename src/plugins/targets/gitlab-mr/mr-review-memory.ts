/**
 * Incremental reviews of a merge request, as the GitHub target's (review-memory-note.ts) with the same core
 * (src/core/review/review-memory.ts): per route and merge request, the last reviewed head and its open findings
 * are a note in the state store. Before the agent runs, the prompt is given them ({@link mrPromptVariables});
 * after a review is posted and recorded, the note is written ({@link rememberMrReview}).
 *
 * A review is `incremental` when the last reviewed head is an ancestor of the new one. GitLab's compare
 * (`GET /projects/:id/repository/compare`) compares from the merge base of `from` and `to`, so it is asked the
 * other way round, `from=HEAD&to=PREVIOUS`: it lists the previous head's commits that the new head lacks, none
 * exactly when the previous head is an ancestor. `full` on the first review, after a force-push or a rebase (the
 * previous head's commits are not in the new one, or GitLab no longer has it: a 404), and when the route asks
 * (`deliver_extra.incremental: "false"`).
 */
import type { Logger } from '../../../core/context-types.js'
import { messageOf } from '../../../core/errors.js'
import type { NoteStore } from '../../../core/note-types.js'
import { updateNote } from '../../../core/jobs/lifecycle/notes.js'
import type { ReviewDocument } from '../../../core/review/document.js'
import { memoryValue, notedFinding, readMemory, reviewVariables, type ReviewMemory, type ReviewMode } from '../../../core/review/review-memory.js'
import type { MergeRequestApi } from './mr-api.js'

/** The note of `route`'s reviews of merge request `iid` of `project` (a GitLab key, apart from GitHub's). */
export function mrReviewNoteKey(route: string, project: string, iid: string): string {
  return `review/${route}/gitlab:${project.toLowerCase()}!${iid}`
}

/** Whether a route's reviews remember the last one: unless `deliver_extra.incremental` is `"false"`. */
export function rememberedIn(extra: Readonly<Record<string, string>>): boolean {
  return extra['incremental'] !== 'false'
}

/** What the prompt and the note of one merge request's reviews are told. */
export interface MrReviewScope {
  readonly route: string
  readonly project: string
  readonly iid: string
  /** Whether the route reviews incrementally ({@link rememberedIn}). */
  readonly incremental: boolean
  /** The state store's notes; undefined on a backend without (the gateway refuses such a route at start). */
  readonly notes: NoteStore | undefined
  readonly log: Logger
}

async function remembered(scope: MrReviewScope): Promise<ReviewMemory | undefined> {
  if (!scope.incremental || scope.notes === undefined) return undefined
  return readMemory((await scope.notes.get(mrReviewNoteKey(scope.route, scope.project, scope.iid)))?.value)
}

/**
 * The prompt's `{review.head}`, `{review.base}`, `{review.previous_head}`, `{review.mode}` and
 * `{review.open_findings}`: the merge request's head and base as GitLab reports them now, and the route's last
 * review of it. Two calls at most: the merge request, and the compare when a previous head is known.
 */
export async function mrPromptVariables(api: MergeRequestApi, scope: MrReviewScope): Promise<Record<string, string>> {
  const { sha: head, baseSha: base } = await api.mergeRequest()
  const memory = await remembered(scope)
  let mode: ReviewMode = 'full'
  if (memory !== undefined && memory.head !== head) {
    const missing = await api.compare(head, memory.head)
    mode = missing !== undefined && missing.length === 0 ? 'incremental' : 'full'
    scope.log.debug(`review scope: ${mode}`, { route: scope.route, previous: memory.head, head, previous_commits_missing: missing?.length ?? 'previous head gone' })
  }
  return reviewVariables({ head, base, previousHead: memory?.head, mode, open: memory?.findings ?? [] })
}

/**
 * After `document`'s review of `head` is posted and recorded: the note remembers `head`, the base and the
 * findings the review raised. Once per head (a retry that finds the note at `head` writes nothing). A failure is
 * logged, not thrown: the review stands, and a note left at an older head only makes the next review's delta
 * larger. Returns whether the note was written.
 */
export async function rememberMrReview(scope: MrReviewScope, head: string, base: string, document: ReviewDocument): Promise<boolean> {
  if (scope.notes === undefined || !scope.incremental) return false
  const notes = scope.notes
  try {
    return await updateNote(notes, mrReviewNoteKey(scope.route, scope.project, scope.iid), (current) => {
      if (readMemory(current)?.head === head) return { result: false }
      return { value: memoryValue({ head, base, findings: document.findings.map((f) => notedFinding(f)) }), result: true }
    })
  } catch (err) {
    scope.log.warn('review memory could not be written; the next review covers more commits', { route: scope.route, project: scope.project, mr: scope.iid, head, reason: messageOf(err) })
    return false
  }
}
