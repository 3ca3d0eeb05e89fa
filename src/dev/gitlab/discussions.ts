/**
 * The fake GitLab's merge request discussions: listed, started (a diff discussion's position checked as GitLab
 * does, positions.ts: a line it cannot place is its 400 `line_code can't be blank`), resolved.
 */
import { randomBytes } from 'node:crypto'
import { LINE_CODE_ERROR, positionProblem } from './positions.js'
import { ID, jsonBody, mergeRequestOf, notFound, paged, type GitlabRoute } from './router.js'
import { NOTE_BODY_LIMIT, noteJson } from './notes.js'
import type { FakeGitlabDiscussion, FakeGitlabNote, FakeMergeRequest } from './state.js'

function discussionJson(mr: FakeMergeRequest, d: FakeGitlabDiscussion): Record<string, unknown> {
  return { id: d.id, individual_note: d.individual_note, notes: d.notes.map((n) => noteJson(mr, n)) }
}

const DISCUSSIONS = `^/projects/${ID}/merge_requests/(\\d+)/discussions`

export const discussionRoutes: readonly GitlabRoute[] = [
  {
    method: 'GET',
    path: new RegExp(`${DISCUSSIONS}$`),
    answer(req, m, ctx) {
      const found = mergeRequestOf(ctx.state, m[1]!, m[2]!)
      if (found.missing) return found.missing
      return paged(req, found.mr.discussions.map((d) => discussionJson(found.mr, d)))
    },
  },
  {
    method: 'POST',
    path: new RegExp(`${DISCUSSIONS}$`),
    writes: true,
    answer(req, m, ctx) {
      const found = mergeRequestOf(ctx.state, m[1]!, m[2]!)
      if (found.missing) return found.missing
      const parsed = jsonBody(req)
      if (parsed.bad) return parsed.bad
      const body = parsed.value
      const text = body['body']
      if (typeof text !== 'string' || text === '') return [400, { error: 'body is missing' }]
      if (text.length > NOTE_BODY_LIMIT) return [400, { message: { note: ['is too long (maximum is 1000000 characters)'] } }]
      const position = body['position']
      if (position !== undefined && (typeof position !== 'object' || position === null)) return [400, { error: 'position is invalid' }]
      if (position !== undefined) {
        const problem = positionProblem(position as Record<string, unknown>, found.mr.versions.at(-1))
        if (problem !== undefined) {
          ctx.note(`refused a position: ${problem}`)
          return [400, { message: LINE_CODE_ERROR }]
        }
      }
      const now = ctx.state.now()
      const note: FakeGitlabNote = {
        id: ctx.state.nextId(),
        body: text,
        author: ctx.user,
        system: false,
        type: position === undefined ? 'DiscussionNote' : 'DiffNote',
        position: position as Record<string, unknown> | undefined,
        resolved: false,
        resolvable: true,
        created_at: now,
        updated_at: now,
        edits: 0,
      }
      const discussion: FakeGitlabDiscussion = { id: randomBytes(20).toString('hex'), individual_note: false, notes: [note] }
      found.mr.discussions.push(discussion)
      ctx.note(`started discussion ${discussion.id.slice(0, 8)} on !${found.mr.iid}`)
      return [201, discussionJson(found.mr, discussion)]
    },
  },
  {
    method: 'PUT',
    path: new RegExp(`${DISCUSSIONS}/([0-9a-f]+)$`),
    writes: true,
    answer(req, m, ctx) {
      const found = mergeRequestOf(ctx.state, m[1]!, m[2]!)
      if (found.missing) return found.missing
      const discussion = found.mr.discussions.find((d) => d.id === m[3])
      if (discussion === undefined) return notFound('Discussion')
      const resolved = req.query.get('resolved')
      if (resolved !== 'true' && resolved !== 'false') return [400, { error: 'resolved is missing' }]
      for (const note of discussion.notes) note.resolved = resolved === 'true'
      ctx.note(`${resolved === 'true' ? 'resolved' : 'unresolved'} discussion ${discussion.id.slice(0, 8)} on !${found.mr.iid}`)
      return [200, discussionJson(found.mr, discussion)]
    },
  },
]
