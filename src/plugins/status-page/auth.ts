/**
 * Who may see the status page: a request with `Authorization: Bearer <token>`, or a browser holding the cookie
 * the login form set. The cookie holds a value derived from the token (an HMAC), never the token itself; the
 * token never travels in a URL; every comparison takes constant time.
 */
import { createHmac } from 'node:crypto'
import { matchesAnyToken } from '../shared/secure-compare.js'

/** The session cookie's name. */
export const COOKIE = 'hookpilot_status'
/** How long a login lasts. */
const MAX_AGE_SECONDS = 12 * 60 * 60

/** The checks of one token. */
export interface StatusAuth {
  /** Whether the request's bearer token or session cookie is this page's. */
  allowed(headers: Readonly<Record<string, string>>): boolean
  /** Whether a login form's token is this page's. */
  matches(token: string): boolean
  /** The `Set-Cookie` value of a login: HttpOnly, SameSite=Strict, for the page's paths only. */
  readonly cookie: string
}

/** The checks for `token`. */
export function statusAuth(token: string): StatusAuth {
  const session = createHmac('sha256', token).update('hookpilot status page session').digest('base64url')
  return {
    allowed(headers) {
      const bearer = /^Bearer\s+(\S+)$/i.exec(headers['authorization'] ?? '')?.[1]
      if (bearer !== undefined) return matchesAnyToken(bearer, [token])
      const cookie = cookieValue(headers['cookie'] ?? '', COOKIE)
      return cookie !== undefined && matchesAnyToken(cookie, [session])
    },
    matches: (presented) => matchesAnyToken(presented, [token]),
    cookie: `${COOKIE}=${session}; Path=/status; HttpOnly; SameSite=Strict; Max-Age=${MAX_AGE_SECONDS}`,
  }
}

function cookieValue(header: string, name: string): string | undefined {
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}
