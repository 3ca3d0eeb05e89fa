/**
 * The fake GitLab's project members: `GET /projects/:id/members/all/:user_id`, a member with their role
 * (`access_level`), inherited members too as GitLab lists them, GitLab's 404 for anyone else.
 */
import { ID, notFound, type GitlabRoute } from './router.js'
import { userJson } from './users.js'

export const memberRoutes: readonly GitlabRoute[] = [
  {
    method: 'GET',
    path: new RegExp(`^/projects/${ID}/members/all/([^/]+)$`),
    answer(_req, m, ctx) {
      const project = ctx.state.project(decodeURIComponent(m[1]!))
      if (project === undefined) return notFound('Project')
      // GitLab's `requires :user_id, type: Integer`.
      if (!/^\d+$/.test(m[2]!)) return [400, { error: 'user_id is invalid' }]
      const member = project.members.get(Number(m[2]))
      if (member === undefined) return [404, { message: '404 Not found' }]
      return [200, { ...userJson(member.user, ctx.origin), state: member.state, access_level: member.accessLevel, created_at: ctx.state.now(), expires_at: null, membership_state: 'active' }]
    },
  },
]
