/** The fake GitLab's users: the one a token is (`GET /user`), and any by id (`GET /users/:id`, with GitLab's `bot` flag). */
import { notFound, type GitlabRoute } from './router.js'
import type { FakeGitlabUser } from './state.js'

/** Whether GitLab marks the user a bot: as told, else a project or group access token's user (`project_1_bot_...`). */
export function isBot(user: FakeGitlabUser): boolean {
  return user.bot ?? user.username.includes('_bot')
}

/** A user as GitLab's API shows one to another user (the public fields, `bot` among them). */
export function userJson(user: FakeGitlabUser, origin: string): Record<string, unknown> {
  return { id: user.id, username: user.username, name: user.username, state: 'active', locked: false, avatar_url: null, web_url: `${origin}/${user.username}`, bot: isBot(user) }
}

export const userRoutes: readonly GitlabRoute[] = [
  {
    method: 'GET',
    path: /^\/user$/,
    answer: (_req, _m, ctx) => [200, userJson(ctx.user, ctx.origin)],
  },
  {
    method: 'GET',
    path: /^\/users\/([^/]+)$/,
    answer(_req, m, ctx) {
      // GitLab's `requires :id, type: Integer`.
      if (!/^\d+$/.test(m[1]!)) return [400, { error: 'id is invalid' }]
      const user = ctx.state.accounts.get(Number(m[1]))
      return user === undefined ? notFound('User') : [200, userJson(user, ctx.origin)]
    },
  },
]
