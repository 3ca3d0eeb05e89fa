/**
 * Reading the JSON bodies of HTTP APIs without trusting their shape: a field is looked up only when the body is
 * an object, and a body that is not JSON (an HTML error page from a proxy) is undefined rather than an exception.
 */

/** `text` parsed as JSON, or undefined when it is not JSON (an HTML error page, an empty body). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** A field of a JSON object body, when the body is an object. */
export function field(body: unknown, key: string): unknown {
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>)[key] : undefined
}

/** A string field of a JSON object body; undefined when absent or not a string. */
export function textField(body: unknown, key: string): string | undefined {
  const value = field(body, key)
  return typeof value === 'string' ? value : undefined
}
