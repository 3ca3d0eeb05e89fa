/**
 * The fake GitHub's API root, `GET /`: `gh auth status` (the gateway's startup check of gh) asks it to learn
 * whether the token works and which scopes it has (the `X-OAuth-Scopes` header of a classic token).
 */
import type { FakeRoute } from './router.js'

/** The scopes the fake's token reports: what a person's token for reviews holds. */
const SCOPES = 'repo, read:org'

/** `GET /`. */
export const metaRoutes: readonly FakeRoute[] = [
  {
    method: 'GET',
    path: /^\/$/,
    answer: (req) => [200, { current_user_url: `${req.origin}/user`, repository_url: `${req.origin}/repos/{owner}/{repo}` }, { 'x-oauth-scopes': SCOPES }],
  },
]
