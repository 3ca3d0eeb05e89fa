/** Small helpers shared by the mock services: JSON answers, the services' error bodies, query readers. */

/** A JSON answer. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } })
}

/** The services' error body `{"error": "..."}` (the catalog adds a `type`). */
export function fail(status: number, error: string, type?: string): Response {
  return json(type === undefined ? { error } : { type, error }, status)
}

/** A boolean parameter: `undefined` when absent, so "not sent" and "false" stay different. */
export function boolParam(q: URLSearchParams, key: string): boolean | undefined {
  const v = q.get(key)
  return v === null ? undefined : v === 'true'
}

/** A numeric parameter, or `undefined` when absent or not a number. */
export function numParam(q: URLSearchParams, key: string): number | undefined {
  const v = q.get(key)
  if (v === null || v.trim() === '') return undefined
  const n = Number(v)
  return Number.isFinite(n) ? n : undefined
}

/** The window of an offset list, with `limit` silently clamped the way the real services do. */
export function window<T>(items: readonly T[], q: URLSearchParams, clamp: number): { items: T[]; offset: number; limit: number } {
  const offset = Math.max(0, numParam(q, 'offset') ?? 0)
  const limit = Math.min(clamp, Math.max(1, numParam(q, 'limit') ?? clamp))
  return { items: items.slice(offset, offset + limit), offset, limit }
}

/** Encodes an offset as an opaque cursor, like the services' base64 cursors. */
export function cursorOf(offset: number): string {
  return btoa(JSON.stringify({ v: 1, o: offset }))
}

/** Decodes {@link cursorOf}; `undefined` for a cursor the mock did not make. */
export function offsetOf(cursor: string): number | undefined {
  try {
    const parsed = JSON.parse(atob(cursor)) as { o?: unknown }
    return typeof parsed.o === 'number' ? parsed.o : undefined
  } catch {
    return undefined
  }
}

/** Sorts by a field (numbers numerically, the rest as text). */
export function sortBy<T extends Record<string, unknown>>(items: T[], field: string, ascending: boolean): T[] {
  return items.sort((a, b) => {
    const x = a[field]
    const y = b[field]
    const c = typeof x === 'number' && typeof y === 'number' ? x - y : text(x).localeCompare(text(y))
    return ascending ? c : -c
  })
}

/** A field's value as sortable text; a missing one sorts as the empty string. */
function text(value: unknown): string {
  if (value === undefined || value === null) return ''
  return typeof value === 'string' ? value : JSON.stringify(value)
}
