/**
 * Field schemas shared by the three services' wire shapes. They are lenient on purpose: the services mix strings
 * and numbers, send `null`, `""` or nothing for absent values, and add fields without notice.
 */
import * as v from 'valibot'

/** An id: numeric strings on the catalog, sometimes plain numbers; always kept as a string (token ids exceed 2^53). */
export const idField = v.pipe(
  v.union([v.string(), v.number()]),
  v.transform((id: string | number): string => String(id)),
)

/** An optional string that may be `null`. */
export const optString = v.optional(v.nullable(v.string()))

/** An optional boolean that may be `null`. */
export const optBoolean = v.optional(v.nullable(v.boolean()))

/** A number or a decimal string (`"0.42"`), optional and nullable; converted by {@link toNumber}. */
export const optNumeric = v.optional(v.nullable(v.union([v.string(), v.number()])))

/**
 * A required price or size: a number or a decimal string (`"0.42"`). Any other string is a shape error at its path,
 * so a price never turns into `NaN` or `0` silently; read it with {@link num}.
 */
export const numeric = v.union([
  // The string branch first: it is what the services send, and a union pays for every branch that fails before.
  v.pipe(
    v.string(),
    v.check((s) => s.trim() !== '' && Number.isFinite(Number(s)), 'expected a number or a decimal string'),
  ),
  v.number(),
])

/**
 * For the hand-rolled fast paths (stream/fast-price-change.ts, clob/fast-book.ts): the number of a value that
 * {@link numeric} accepts, or `undefined` for any value it refuses (the fast path then leaves the input to the schema).
 */
export function numericValue(x: unknown): number | undefined {
  if (typeof x === 'number') return Number.isNaN(x) ? undefined : x
  if (typeof x !== 'string') return undefined
  const n = Number(x)
  if (!Number.isFinite(n)) return undefined
  // Number() reads blank text as 0, which the schema refuses; only a 0 can be blank, so only a 0 pays for the trim.
  return n === 0 && x.trim() === '' ? undefined : n
}

/** What {@link optString} accepts. */
export const isOptString = (x: unknown): boolean => x === undefined || x === null || typeof x === 'string'
/** What {@link optNumeric} accepts. */
export const isOptNumeric = (x: unknown): boolean => x === undefined || x === null || typeof x === 'string' || typeof x === 'number'

/** Keys a valibot object schema leaves out of its output: an input with one of them must take the schema. */
export function hasDroppedKey(o: object): boolean {
  return Object.hasOwn(o, '__proto__') || Object.hasOwn(o, 'constructor') || Object.hasOwn(o, 'prototype')
}

/** The number of a value {@link numeric} accepted. */
export function num(value: number | string): number {
  return typeof value === 'number' ? value : Number(value)
}

/**
 * A double-encoded array: a string holding a JSON array (`"[\"Yes\", \"No\"]"`). `null`, `""` and a missing field
 * are accepted (odd markets have them); a string that is not a JSON array is a shape error at this path.
 */
export const encodedList = v.optional(
  v.nullable(v.pipe(v.string(), v.check(isEncodedList, 'expected a string holding a JSON array'))),
)

function isEncodedList(value: string): boolean {
  if (value.trim() === '') return true
  try {
    return Array.isArray(JSON.parse(value))
  } catch {
    return false
  }
}

/** Decodes a double-encoded array once; absent or empty gives `[]`, items become strings (prices stay decimal text). */
export function decodeList(value: string | null | undefined): string[] {
  if (value === null || value === undefined || value.trim() === '') return []
  const parsed = JSON.parse(value) as unknown[]
  return parsed.map((item) => (typeof item === 'string' ? item : JSON.stringify(item)))
}

/** A price, size or amount as a number; `null` when absent, empty or not numeric. */
export function toNumber(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null
  const n = typeof value === 'number' ? value : Number(value)
  return Number.isFinite(n) ? n : null
}

/** A date from ISO text or the catalog's `2026-06-04 00:34:19+00` form; `null` when absent or unreadable. */
export function toDate(value: string | null | undefined): Date | null {
  if (value === null || value === undefined || value.trim() === '') return null
  const iso = value.trim().replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00')
  const date = new Date(iso)
  return Number.isNaN(date.getTime()) ? null : date
}
