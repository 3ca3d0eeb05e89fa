/** The fake GitHub's `GET /user`: who the token stands for (sticky mode asks it, through `gh api user`). */
import type { FakeRoute } from './router.js'

/** `/user` answers the authenticated account's login. */
export const userRoutes: readonly FakeRoute[] = [
  {
    method: 'GET',
    path: /^\/user$/,
    answer: (_req, _match, { account }) => [200, { login: account?.login, type: account?.login.endsWith('[bot]') === true ? 'Bot' : 'User' }],
  },
]
