/**
 * What an `INSECURE_NO_AUTH` route refuses besides the network: a page open in the developer's browser. The
 * loopback rule keeps other machines out, not a page, which can post to `127.0.0.1` by a cross-site form
 * (`application/x-www-form-urlencoded`) or a `no-cors` fetch (`text/plain`) without a preflight. A browser says
 * who sent such a request (`Origin`, `Sec-Fetch-Site`), which no webhook sender does, and a page cannot send
 * `application/json` across sites without a CORS preflight, which the gateway never answers.
 */
/** Why an `INSECURE_NO_AUTH` route refuses a request: a browser sent it, or its body is of a type a page can send. */
export type BrowserRefusal = 'from_a_browser' | 'not_json'

/**
 * Why an unauthenticated route must not take this request from a browser, or undefined when it may run:
 * `from_a_browser` for an `Origin`, or a `Sec-Fetch-Site` other than `none` (a user's own navigation);
 * `not_json` for a body whose type a page could send across sites without a preflight.
 */
export function browserRefusal(headers: Readonly<Record<string, string>>): BrowserRefusal | undefined {
  const site = headers['sec-fetch-site']
  if (headers['origin'] !== undefined || (site !== undefined && site.trim().toLowerCase() !== 'none')) return 'from_a_browser'
  // The media type before any parameter (`application/json; charset=utf-8`), as RFC 9110 compares it.
  const type = headers['content-type']?.split(';', 1)[0]?.trim().toLowerCase()
  return type === 'application/json' ? undefined : 'not_json'
}
