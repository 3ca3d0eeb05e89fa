/** How results reach stdout: a readable rendering, or JSON for scripts (without the bulky `raw` wire copies). */
import type { CliIO } from '../io.js'

/** Writes `value` as indented JSON; Maps become objects and Dates ISO strings, `raw` fields are left out. */
export function writeJson(io: CliIO, value: unknown): void {
  const text = JSON.stringify(
    value,
    (key, v: unknown): unknown => {
      if (key === 'raw') return undefined
      return v instanceof Map ? Object.fromEntries(v) : v
    },
    2,
  )
  io.stdout.write(`${text}\n`)
}
