/** The request URLs of the market client: a base URL, a path and a query joined, as cheaply as the URL allows. */

/** Query parameters; arrays are sent as repeated keys (`id=1&id=2`), `undefined` is left out. */
export type QueryInit = Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>

/** Joins a base URL, a path and the query; arrays become repeated keys. The reference {@link urlBuilder} follows. */
export function buildUrl(base: string, path: string, query: QueryInit | undefined): string {
  const url = new URL(base.replace(/\/+$/, '') + path)
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value === undefined) continue
    const values: readonly (string | number | boolean)[] = Array.isArray(value) ? value : [value as string]
    for (const item of values) url.searchParams.append(key, String(item))
  }
  return url.toString()
}

/** Path characters the URL parser keeps as they are (no percent-encoding, no `%`, no `\\`); dot segments aside. */
const PLAIN_PATH = /^(?:\/[A-Za-z0-9\-._~!$&'()*+,;=:@]*)+$/
/** A `.` or `..` segment, which the URL parser would resolve away. */
const DOT_SEGMENT = /\/\.\.?(?:\/|$)/
/** Query text that URLSearchParams writes unchanged. */
const PLAIN_QUERY = /^[A-Za-z0-9*\-._]*$/

/**
 * {@link buildUrl} for one base URL, giving the same string without a `URL` and a `URLSearchParams` per call: the
 * base is checked once, and a path and query made only of characters the URL parser and the form encoder leave
 * alone are joined as text. Anything else takes {@link buildUrl} itself, so the result is always the same.
 */
export function urlBuilder(base: string): (path: string, query: QueryInit | undefined) => string {
  const prefix = base.replace(/\/+$/, '')
  let canonical = false
  try {
    canonical = !/[?#]/.test(prefix) && new URL(prefix + '/').href === prefix + '/'
  } catch {
    // Not a URL: buildUrl throws the parser's own error at call time, as before.
  }
  return (path, query) => {
    if (!canonical || !PLAIN_PATH.test(path) || DOT_SEGMENT.test(path)) return buildUrl(base, path, query)
    let search = ''
    for (const key in query) {
      const value = query[key]
      if (value === undefined) continue
      if (typeof value === 'object') {
        for (const item of value) search += pair(key, item)
      } else {
        search += pair(key, String(value))
      }
    }
    return search === '' ? prefix + path : `${prefix}${path}?${search.slice(1)}`
  }
}

/** `&key=value`, form-encoded exactly as URLSearchParams writes it. */
function pair(key: string, value: string): string {
  if (PLAIN_QUERY.test(key) && PLAIN_QUERY.test(value)) return `&${key}=${value}`
  return `&${new URLSearchParams([[key, value]]).toString()}`
}
