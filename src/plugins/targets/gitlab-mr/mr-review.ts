/**
 * One review of a merge request's head, posted the way every code host gets one (docs/reviews.md): the answer read
 * as a review document, its findings anchored on the diff of the head reviewed (src/core/review), each finding
 * GitLab can place started as a discussion on its line, every other one folded into the route's sticky note
 * (with the summary and the footer), and a commit status on that head.
 *
 * Exactly once per head, across retries, redeliveries, `jobs retry` and a `kill -9` between a post and its
 * record: every write is found again before it is made. A finding's discussion carries the route, the head and
 * the finding's index in its first line and is not started twice; the note is found by its first line and the
 * token's user and edited, never doubled; and it is written last, so the head its second line names is a head
 * whose discussions are all there. A head the note already names is not reviewed again.
 */
import { anchorReview, refold, type AnchoredReview } from '../../../core/review/anchor.js'
import type { ReviewDocument, Severity } from '../../../core/review/document.js'
import { renderReview } from '../../../core/review/render.js'
import { findingsAtOrAbove, severityTally } from '../../../core/review/severity.js'
import type { AgentAnswer, DeliveryContext, DeliveryReceipt } from '../../../core/types.js'
import { DeliveryError } from '../../../core/errors.js'
import { inertReview, parseReviewAnswer } from '../../shared/review-answer.js'
import { reviewFooter } from '../../shared/review-footer.js'
import { TARGET } from './gitlab-http.js'
import type { GitlabUser } from './gitlab-users.js'
import { PER_PAGE, type MergeRequestApi, type MrDiscussion, type MrNote, type MrVersion, type StatusState } from './mr-api.js'
// A finding is the same one in a later review by the review memory's key (its file and title): one identity for
// what a discussion holds and what the note remembers.
import { findingKey } from '../../../core/review/review-memory.js'
import { findingMarker, parseFindingMarker, parseReviewedLine, reviewedLine, sameDelivery, withoutQuickActions } from './mr-markers.js'
import { changedFilesOf, gitlabSuggestion, textPosition } from './mr-positions.js'
import { markerRoute } from '../../shared/hidden-markers.js'
import { payloadWithHead } from './mr-payload.js'
import { rememberMrReview, type MrReviewScope } from './mr-review-memory.js'
import { settleRunning, type StatusEnd } from './mr-status.js'
import { reviewStatusName } from '../../shared/review-status-name.js'
import { stickyMarker } from '../../shared/hidden-markers.js'

/** Pages of notes, and of discussions, searched for the gateway's own: 2,000 of each. */
export const MAX_PAGES = 20

/**
 * The note's size limit the review is rendered within. GitLab's own is about 1,000,000 characters; the review
 * document's bounds keep any review far below it.
 */
export const NOTE_LIMIT = 1_000_000

/** What a review delivery is told besides the answer. */
export interface MrReviewRequest {
  readonly route: string
  /** The project (`deliver_extra.project`) and the merge request's iid: the follow-up job's key names them. */
  readonly project: string
  readonly iid: string
  /** The head the answer is about: the event's `object_attributes.last_commit.id`, when it names one. */
  readonly answeredHead: string | undefined
  /** `deliver_extra.fail_on`: the status fails when a finding is this severe or more. */
  readonly failOn?: Severity | undefined
  /** `deliver_extra.status_url`: the status's link (the job on the status page). */
  readonly statusUrl?: string | undefined
  /** `deliver_extra.status: "false"` turns the commit status off. */
  readonly status: boolean
  /** The cap on discussions per review (the core's default when absent). */
  readonly maxInline?: number | undefined
  /** When the footer says the review was written. */
  readonly now: number
  /** Where the route's last review of the merge request is remembered (incremental reviews; mr-review-memory.ts). */
  readonly memory?: MrReviewScope | undefined
}

/** Posts the review of the merge request's head now (see the module's comment). `me` is the token's user. */
export async function postMrReview(api: MergeRequestApi, me: GitlabUser, answer: AgentAnswer, request: MrReviewRequest, ctx: DeliveryContext): Promise<DeliveryReceipt> {
  const mr = await api.mergeRequest()
  const head = mr.sha
  const answered = (request.answeredHead ?? head).toLowerCase()
  const note = await findOwnNote(api, stickyMarker(request.route), me)
  const reviewed = parseReviewedLine(note?.body.split('\n')[1])
  const noteUrl = (id: number) => `${mr.webUrl}#note_${id}`
  const place = { name: reviewStatusName(request.route), ref: mr.sourceBranch, targetUrl: request.statusUrl }
  const status = async (sha: string, state: StatusState, description: string) => {
    if (request.status) await api.setStatus(sha, { state, description, ...place })
  }
  // A head whose review stands (another job's): a status this job marked running ends as the head's last one says.
  const settle = async (sha: string, fallback: StatusEnd) => {
    if (request.status) await settleRunning(api, sha, place, fallback)
  }
  const supersededBy = `Superseded: the head moved to ${head.slice(0, 7)} before this review was posted`
  // Best effort: the older head may be gone from GitLab (a force-push); the answer is superseded either way.
  const olderHead = (write: Promise<unknown>) => write.catch((error: unknown) => {
    if (DeliveryError.is(error) && error.retryable) throw error
    ctx.log.warn('the superseded head\'s status could not be set', { route: request.route, head: answered, reason: String(error) })
  })

  if (answered !== head) {
    if (reviewed?.head === head) {
      // A status this job's start left running on the older head ends; a finished one is left as it is.
      await olderHead(settle(answered, { state: 'canceled', description: supersededBy }))
      return { posted: false, outcome: 'skipped', reason: `already reviewed: the merge request's head ${head.slice(0, 7)} has this route's review ${noteUrl(note!.id)} (this answer was for ${answered.slice(0, 7)})` }
    }
    await olderHead(status(answered, 'canceled', supersededBy))
    // The push of the new head may never come (lost, or accepted before this run): a follow-up job of the route
    // reviews it, named for the merge request and that head so it is queued once (the dispatcher skips it when a
    // newer event of the group was accepted), as the GitHub target's.
    return {
      posted: false,
      outcome: 'superseded',
      reason: `the answer is for ${answered.slice(0, 7)}, but the merge request's head moved to ${head.slice(0, 7)}, which this route has not reviewed: nothing was posted; ${head.slice(0, 7)} is reviewed next`,
      followUp: { key: `${request.project}!${request.iid}@${head}`, payload: payloadWithHead(answer.payload ?? {}, head) },
    }
  }
  if (reviewed?.head === head) {
    // The same delivery wrote it (a retry after a crash between the post and its record): its review, done. Its
    // status is completed unless the saved progress says it was (2: note, then status).
    if (sameDelivery(reviewed.delivery, answer.deliveryId)) {
      if (ctx.progress < 2) {
        const document = parseReviewAnswer(TARGET, answer.text)
        if (request.memory !== undefined) await rememberMrReview(request.memory, head, mr.baseSha, document)
        await finishStatus(document)
        await ctx.saveProgress(2)
      }
      return { posted: true, url: noteUrl(note!.id) }
    }
    // Without a finished status to copy (the reviewing job completes its own when tried again): not this job's success.
    await settle(head, { state: 'canceled', description: `Reviewed by another job (${noteUrl(note!.id)})` })
    return { posted: false, outcome: 'skipped', reason: `already reviewed: head ${head.slice(0, 7)} has this route's review ${noteUrl(note!.id)}` }
  }

  const document = parseReviewAnswer(TARGET, answer.text)
  // The status went `running` when the agent started (the target's `started`); it is moved to its end below.
  const version = await versionOf(api, head)
  const files = changedFilesOf(await api.versionDiffs(version.id))
  const review = inertReview(document)
  const anchored = anchorReview(review, files, request.maxInline === undefined ? {} : { maxInline: request.maxInline })
  const own = await ownDiscussions(api, me)
  const posted = await postDiscussions(api, anchored, files, version, own, request.route, head)
  const final = refold(anchored, posted.refused)

  const marker = stickyMarker(request.route)
  const second = reviewedLine(head, answer.deliveryId)
  const footer = `\n\n---\n${reviewFooter({ head, at: request.now, covers: answer.covers ?? 1 })}`
  const rendered = renderReview(final, NOTE_LIMIT - marker.length - second.length - footer.length - 2)
  const body = `${marker}\n${second}\n${withoutQuickActions(rendered.body)}${footer}`
  const noteId = (note !== undefined && await api.editNote(note.id, body)) ? note.id : await api.createNote(body)
  await ctx.saveProgress(1)

  const resolved = await resolveOutdated(api, own, request.route, head, new Set(review.findings.map(findingKey)))
  // Remembered once the review is recorded (progress 1): the next review's prompt starts from this head.
  if (request.memory !== undefined) await rememberMrReview(request.memory, head, mr.baseSha, document)
  await finishStatus(document)
  await ctx.saveProgress(2)
  ctx.log.debug('merge request review posted', { route: request.route, delivery: answer.deliveryId, head, discussions: posted.count, folded: rendered.folded.length, refused: posted.refused.length, resolved })
  return { posted: true, url: noteUrl(noteId) }

  async function finishStatus(review: ReviewDocument): Promise<void> {
    const failing = findingsAtOrAbove(review.findings, request.failOn)
    const tally = severityTally(review.findings)
    await status(head, failing.length > 0 ? 'failed' : 'success', failing.length > 0
      ? `${failing.length} finding${failing.length === 1 ? '' : 's'} at ${request.failOn} or above (${tally})`
      : `Reviewed: ${tally}`)
  }
}

/** The version of the merge request's diff whose head is `head`: its SHAs are the ones every position quotes. */
async function versionOf(api: MergeRequestApi, head: string): Promise<MrVersion> {
  const version = (await api.versions()).find((v) => v.headSha === head)
  // GitLab computes a version shortly after a push; the merge request may name the head a moment before.
  if (version === undefined) throw new DeliveryError(TARGET, `GitLab has no diff version for head ${head.slice(0, 7)} yet; tried again later`, { retryable: true, retryAfterMs: 5_000 })
  return version
}

/**
 * The route's note: the oldest note by the token's user whose first line is `marker`, reading at most
 * {@link MAX_PAGES} pages. Someone else's note that copies the marker, and GitLab's system notes, are passed over.
 */
export async function findOwnNote(api: MergeRequestApi, marker: string, me: GitlabUser): Promise<MrNote | undefined> {
  for (let page = 1; page <= MAX_PAGES; page++) {
    const rows = await api.notesPage(page)
    const mine = rows.find((n) => !n.system && n.authorId === me.id && n.body.split('\n', 1)[0] === marker)
    if (mine !== undefined) return mine
    if (rows.length < PER_PAGE) return undefined
  }
  return undefined
}

/** A discussion the gateway started, with what its first line says. */
interface OwnDiscussion {
  readonly id: string
  readonly mark: NonNullable<ReturnType<typeof parseFindingMarker>>
  readonly resolved: boolean
}

/** The discussions by the token's user that start with a finding's marker (any route, any head). */
async function ownDiscussions(api: MergeRequestApi, me: GitlabUser): Promise<OwnDiscussion[]> {
  const own: OwnDiscussion[] = []
  for (let page = 1; page <= MAX_PAGES; page++) {
    const rows: readonly MrDiscussion[] = await api.discussionsPage(page)
    for (const row of rows) {
      const first = row.notes[0]
      if (first === undefined || first.system || first.authorId !== me.id) continue
      const mark = parseFindingMarker(first.body.split('\n', 1)[0])
      if (mark !== undefined) own.push({ id: row.id, mark, resolved: first.resolved })
    }
    if (rows.length < PER_PAGE) break
  }
  return own
}

/**
 * Starts a discussion for each inline finding that has none yet at this head; the findings GitLab refuses to place
 * (400) are returned, to be folded into the note: none is lost.
 */
async function postDiscussions(api: MergeRequestApi, anchored: AnchoredReview, files: ReturnType<typeof changedFilesOf>, version: MrVersion, own: readonly OwnDiscussion[], route: string, head: string): Promise<{ count: number, refused: number[] }> {
  const rendered = renderReview(anchored, NOTE_LIMIT)
  // A discussion counts for a finding when it names its index and its fingerprint: an agent run again for the same
  // head (an operator's retry after a crash midway) may answer otherwise, and its findings must not be taken as posted.
  const done = new Set(own.filter((d) => d.mark.route === markerRoute(route) && d.mark.head === head).map((d) => `${d.mark.index}:${d.mark.fingerprint}`))
  const refused: number[] = []
  let count = 0
  for (const comment of rendered.comments) {
    const placement = anchored.placements[comment.finding]
    if (placement?.kind !== 'inline') continue
    const finding = anchored.review.findings[comment.finding]!
    if (done.has(`${comment.finding}:${findingKey(finding)}`)) {
      count++
      continue
    }
    const lines = finding.start_line === undefined ? 1 : finding.line - finding.start_line + 1
    const body = `${findingMarker(route, head, comment.finding, findingKey(finding))}\n${withoutQuickActions(gitlabSuggestion(comment.body, lines))}`
    const created = await api.createDiscussion(body, textPosition(placement, files, version))
    if (created.ok) count++
    else refused.push(comment.finding)
  }
  return { count, refused }
}

/**
 * Resolves the route's discussions of earlier heads whose finding this review does not raise again (its
 * fingerprint is not among the new findings'); their number.
 */
async function resolveOutdated(api: MergeRequestApi, own: readonly OwnDiscussion[], route: string, head: string, raised: ReadonlySet<string>): Promise<number> {
  let resolved = 0
  for (const d of own) {
    if (d.resolved || d.mark.route !== markerRoute(route) || d.mark.head === head || raised.has(d.mark.fingerprint)) continue
    await api.resolveDiscussion(d.id)
    resolved++
  }
  return resolved
}
