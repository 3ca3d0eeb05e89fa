/**
 * The fake GitLab's award emoji on a merge request's notes: `POST .../merge_requests/:iid/notes/:note_id/award_emoji`
 * `{name}`, as GitLab answers it: 201 with the award; a name GitLab does not know, or the same user's same emoji
 * on the same note again, GitLab's 404 `Award Emoji <why> Not Found` (its API turns the refusal into a 404); a note
 * not on the merge request its 404. `GET` lists a note's awards.
 */
import { ID, jsonBody, mergeRequestOf, notFound, paged, type GitlabRoute } from './router.js'
import { allNotes } from './notes.js'
import type { FakeAward } from './state.js'
import { userJson } from './users.js'

/** Emoji names GitLab knows (a few: the ones reactions use, and some more). */
const EMOJI = new Set(['eyes', 'thumbsup', 'thumbsdown', 'rocket', 'confused', 'heart', 'tada', 'smile', 'laughing'])

const AWARDS = `^/projects/${ID}/merge_requests/(\\d+)/notes/(\\d+)/award_emoji$`

function awardJson(award: FakeAward, origin: string): Record<string, unknown> {
  return { id: award.id, name: award.name, user: userJson(award.user, origin), created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z', awardable_id: award.noteId, awardable_type: 'Note' }
}

export const awardEmojiRoutes: readonly GitlabRoute[] = [
  {
    method: 'GET',
    path: new RegExp(AWARDS),
    answer(req, m, ctx) {
      const found = mergeRequestOf(ctx.state, m[1]!, m[2]!)
      if (found.missing) return found.missing
      const noteId = Number(m[3])
      if (!allNotes(found.mr).some((n) => n.id === noteId)) return notFound('Note')
      return paged(req, found.mr.awards.filter((a) => a.noteId === noteId).map((a) => awardJson(a, ctx.origin)))
    },
  },
  {
    method: 'POST',
    path: new RegExp(AWARDS),
    writes: true,
    answer(req, m, ctx) {
      const found = mergeRequestOf(ctx.state, m[1]!, m[2]!)
      if (found.missing) return found.missing
      const noteId = Number(m[3])
      if (!allNotes(found.mr).some((n) => n.id === noteId)) return notFound('Note')
      const parsed = jsonBody(req)
      if (parsed.bad) return parsed.bad
      const name = parsed.value['name']
      if (typeof name !== 'string' || name === '') return [400, { error: 'name is missing' }]
      if (!EMOJI.has(name)) return notFound('Award Emoji Name is not a valid emoji name')
      if (found.mr.awards.some((a) => a.noteId === noteId && a.name === name && a.user.id === ctx.user.id)) return notFound('Award Emoji User has already been taken')
      const award: FakeAward = { id: ctx.state.nextId(), noteId, name, user: ctx.user }
      found.mr.awards.push(award)
      ctx.note(`awarded ${name} to note ${noteId}`)
      return [201, awardJson(award, ctx.origin)]
    },
  },
]
