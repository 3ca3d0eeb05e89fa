/**
 * Who may see the status page: a request with `Authorization: Bearer <token>`, or a browser holding the cookie
 * the login form set. The cookie holds the time it was issued and an HMAC of that time keyed by the token, never
 * the token itself; the server refuses it 12 hours after it was issued (the browser's `Max-Age` alone is the
 * browser's promise, not the server's), so a copied cookie does not last forever. The token never travels in a
 * URL; every comparison takes constant time.
 */
import { createHmac } from 'node:crypto'
import type { Clock } from '../../core/types.js'
import { matchesAnyToken } from '../shared/secure-compare.js'

/** The session cookie's name. */
export const COOKIE = 'hookpilot_status'
/** How long a login lasts, in seconds: the cookie's Max-Age and the age the server accepts. */
export const SESSION_SECONDS = 12 * 60 * 60
/** How far ahead of the server's clock an issue time may be (another instance's clock, a little off). */
const SKEW_SECONDS = 60
/** `<issued, seconds since the epoch>.<base64url HMAC-SHA256>` */
const SESSION = /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/

/** What a request presented, and whether it is this page's. */
export type Presented = 'bearer' | 'wrong-bearer' | 'session' | 'none'

/** The checks of one token. */
export interface StatusAuth {
  /** What the request's bearer token or session cookie is: the page's, a wrong bearer token, or nothing valid. */
  presented(headers: Readonly<Record<string, string>>): Presented
  /** Whether a login form's token is this page's. */
  matches(token: string): boolean
  /** The `Set-Cookie` value of a login now: HttpOnly, SameSite=Strict, for the page's paths only. */
  cookie(): string
}

/** The checks for `token`, on `now`. */
export function statusAuth(token: string, now: Clock = Date.now): StatusAuth {
  const mac = (issued: string) => createHmac('sha256', token).update(`hookpilot status page session\u0000${issued}`).digest('base64url')
  const validSession = (value: string): boolean => {
    const match = SESSION.exec(value)
    if (!match) return false
    const [, issued = '', presented = ''] = match
    if (!matchesAnyToken(presented, [mac(issued)])) return false
    const age = now() / 1000 - Number(issued)
    return age <= SESSION_SECONDS && age >= -SKEW_SECONDS
  }
  return {
    presented(headers) {
      const bearer = /^Bearer\s+(\S+)$/i.exec(headers['authorization'] ?? '')?.[1]
      if (bearer !== undefined) return matchesAnyToken(bearer, [token]) ? 'bearer' : 'wrong-bearer'
      const cookie = cookieValue(headers['cookie'] ?? '', COOKIE)
      return cookie !== undefined && validSession(cookie) ? 'session' : 'none'
    },
    matches: (presented) => matchesAnyToken(presented, [token]),
    cookie() {
      const issued = String(Math.floor(now() / 1000))
      return `${COOKIE}=${issued}.${mac(issued)}; Path=/status; HttpOnly; SameSite=Strict; Max-Age=${SESSION_SECONDS}`
    },
  }
}

function cookieValue(header: string, name: string): string | undefined {
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}
