/** The fake GitLab's merge request notes: listed (all notes, discussion notes too, system ones included), created, edited by their author only. */
import { ID, jsonBody, mergeRequestOf, notFound, paged, type GitlabRoute } from './router.js'
import type { FakeGitlabNote, FakeMergeRequest } from './state.js'

/** A note as GitLab's API answers it. */
export function noteJson(mr: FakeMergeRequest, note: FakeGitlabNote): Record<string, unknown> {
  return {
    id: note.id,
    type: note.type,
    body: note.body,
    author: { id: note.author.id, username: note.author.username, name: note.author.username, state: 'active' },
    created_at: note.created_at,
    updated_at: note.updated_at,
    system: note.system,
    noteable_iid: mr.iid,
    noteable_type: 'MergeRequest',
    resolvable: note.resolvable,
    resolved: note.resolved,
    internal: false,
    ...(note.position === undefined ? {} : { position: note.position }),
  }
}

/** Every note of the merge request, oldest first: plain notes and the notes of its discussions. */
export function allNotes(mr: FakeMergeRequest): FakeGitlabNote[] {
  return [...mr.notes, ...mr.discussions.flatMap((d) => d.notes)].sort((a, b) => a.id - b.id)
}

/** GitLab refuses an empty note, and one over its size limit. */
export const NOTE_BODY_LIMIT = 1_000_000

const NOTES = `^/projects/${ID}/merge_requests/(\\d+)/notes`

export const noteRoutes: readonly GitlabRoute[] = [
  {
    method: 'GET',
    path: new RegExp(`${NOTES}$`),
    answer(req, m, ctx) {
      const found = mergeRequestOf(ctx.state, m[1]!, m[2]!)
      if (found.missing) return found.missing
      const notes = allNotes(found.mr)
      if (req.query.get('sort') === 'desc') notes.reverse()
      return paged(req, notes.map((n) => noteJson(found.mr, n)))
    },
  },
  {
    method: 'POST',
    path: new RegExp(`${NOTES}$`),
    writes: true,
    answer(req, m, ctx) {
      const found = mergeRequestOf(ctx.state, m[1]!, m[2]!)
      if (found.missing) return found.missing
      const parsed = jsonBody(req)
      if (parsed.bad) return parsed.bad
      const text = parsed.value['body']
      if (typeof text !== 'string' || text === '') return [400, { error: 'body is missing' }]
      if (text.length > NOTE_BODY_LIMIT) return [400, { message: { note: ['is too long (maximum is 1000000 characters)'] } }]
      const now = ctx.state.now()
      const note: FakeGitlabNote = { id: ctx.state.nextId(), body: text, author: ctx.user, system: false, type: null, resolved: false, resolvable: false, created_at: now, updated_at: now, edits: 0 }
      found.mr.notes.push(note)
      ctx.note(`created note ${note.id} on !${found.mr.iid}`)
      return [201, noteJson(found.mr, note)]
    },
  },
  {
    method: 'PUT',
    path: new RegExp(`${NOTES}/(\\d+)$`),
    writes: true,
    answer(req, m, ctx) {
      const found = mergeRequestOf(ctx.state, m[1]!, m[2]!)
      if (found.missing) return found.missing
      const note = allNotes(found.mr).find((n) => n.id === Number(m[3]))
      if (note === undefined) return notFound('Note')
      if (note.author.id !== ctx.user.id) return [403, { message: '403 Forbidden' }]
      const parsed = jsonBody(req)
      if (parsed.bad) return parsed.bad
      const text = parsed.value['body']
      if (typeof text !== 'string' || text === '') return [400, { error: 'body is missing' }]
      note.body = text
      note.updated_at = ctx.state.now()
      note.edits++
      ctx.note(`edited note ${note.id} on !${found.mr.iid} (edit ${note.edits})`)
      return [200, noteJson(found.mr, note)]
    },
  },
]
