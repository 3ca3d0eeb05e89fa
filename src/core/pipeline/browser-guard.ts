/**
 * What an `INSECURE_NO_AUTH` route refuses besides the network: a page open in the developer's browser. The
 * loopback rule keeps other machines out, not a page, which can post to `127.0.0.1` by a cross-site form
 * (`application/x-www-form-urlencoded`) or a `no-cors` fetch (`text/plain`) without a preflight. A browser says
 * who sent such a request (`Origin`, `Sec-Fetch-Site`), which no webhook sender does, and a page cannot send
 * `application/json` across sites without a CORS preflight, which the gateway never answers.
 */
import { json, type GatewayResponse } from '../http/responses.js'

/** 403: a browser sent it (an `Origin`, or a `Sec-Fetch-Site` other than `none`, a user's own navigation). */
const FROM_A_BROWSER: GatewayResponse = Object.freeze(json(403, {
  error: 'INSECURE_NO_AUTH route: refused a request sent by a browser (Origin or Sec-Fetch-Site header); a web page must not run an unauthenticated route',
}))

/** 415: a body whose type a page could send across sites without a preflight. */
const NOT_JSON: GatewayResponse = Object.freeze(json(415, {
  error: 'INSECURE_NO_AUTH route: only Content-Type application/json is accepted',
}))

/** The refusal for a request an unauthenticated route must not take from a browser, or undefined when it may run. */
export function browserRefusal(headers: Readonly<Record<string, string>>): GatewayResponse | undefined {
  const site = headers['sec-fetch-site']
  if (headers['origin'] !== undefined || (site !== undefined && site.trim().toLowerCase() !== 'none')) return FROM_A_BROWSER
  // The media type before any parameter (`application/json; charset=utf-8`), as RFC 9110 compares it.
  const type = headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase()
  return type === 'application/json' ? undefined : NOT_JSON
}
