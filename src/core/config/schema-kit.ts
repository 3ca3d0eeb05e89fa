/**
 * The building blocks of config schemas, for the core and for plugins: numbers and booleans that also accept
 * the strings `${VAR}` interpolation produces, strings with messages a person reads, and ids YAML may write as
 * numbers. A plugin's options schema built from these reports errors the way the core's do.
 */
import * as v from 'valibot'

/** An integer in a range; also accepts a string of digits (what `${VAR}` interpolation produces). */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  const expected = max === Number.MAX_SAFE_INTEGER ? `expected a whole number of at least ${min}` : `expected a whole number from ${min} to ${max}`
  return v.pipe(
    v.union([v.number(), v.pipe(v.string(), v.regex(/^-?\d+$/), v.transform(Number))], expected),
    v.integer(expected),
    v.minValue(min, expected),
    v.maxValue(max, expected),
  )
}

/** A boolean; also `"true"`/`"false"` strings from interpolation. */
export const boolean = v.union(
  [v.boolean(), v.pipe(v.picklist(['true', 'false']), v.transform((s) => s === 'true'))],
  'expected true or false',
)

/** A string, with a message a person reads. */
export const text = v.string('expected a string')
/** A list of strings. */
export const textList = v.array(text, 'expected a list of strings')
/** A string that is not empty or blank; `what` says what belongs there. */
export const nonBlank = (what: string) => v.pipe(text, v.check((s: string) => s.trim() !== '', `must not be empty: ${what}`))

/**
 * An id that YAML may write as a number (a chat id, a channel). Ids past 2^53 (Discord's, some Telegram
 * ones) are already rounded when YAML reads them, so a number is taken only while it is exact.
 */
export const idText = v.pipe(
  v.union(
    [
      text,
      v.pipe(
        v.number(),
        v.check((n: number) => Number.isSafeInteger(n), 'YAML rounds a number this long (or with a fraction): write the id in quotes, e.g. "1234567890123456789"'),
      ),
    ],
    'expected a string',
  ),
  v.transform(String), // after the union: a transform inside an option would hide the check's message
)
