/**
 * The one-line form of a watch's conditions, for `hookpilot subscribe --market ... --when ...` and for
 * `hookpilot list`: `midpoint_moves=0.05/600` (a move of 0.05 within 600 seconds), `price_crosses=0.25,0.5`
 * (with `/0.02`, the hysteresis band), `trade_size_over=5000`, `resolved`. Each flag becomes the condition a
 * config.yaml watch writes as `{ midpoint_moves: 0.05, within_seconds: 600 }`, checked by the same schema.
 */
import { suggest } from '../../../util/suggest.js'
import type { ConditionConfig } from './options.js'

/** The forms, as the errors and the help show them. */
export const WHEN_FORMS = 'midpoint_moves=MOVE/SECONDS, price_crosses=LEVEL,LEVEL[/BAND], trade_size_over=SHARES, resolved'

const KINDS = ['midpoint_moves', 'price_crosses', 'trade_size_over', 'resolved'] as const

/** A `--when` written wrong: the message says what to write instead. */
export class WhenSyntaxError extends Error {
  override readonly name = 'WhenSyntaxError'
}

/** One `--when` value as a condition (its numbers unchecked: the watch schema checks them, with this flag's text). */
export function parseWhen(text: string): Record<string, unknown> {
  const eq = text.indexOf('=')
  const kind = (eq === -1 ? text : text.slice(0, eq)).trim()
  const value = eq === -1 ? undefined : text.slice(eq + 1).trim()
  const fail = (why: string): never => {
    throw new WhenSyntaxError(`--when "${text}": ${why}`)
  }
  switch (kind) {
    case 'midpoint_moves': {
      const [move, window, ...rest] = (value ?? '').split('/')
      if (window === undefined || rest.length > 0) fail('a move needs its window: midpoint_moves=0.05/600 is a move of 0.05 (5 points) within 600 seconds')
      return { midpoint_moves: num(move, fail), within_seconds: seconds(window ?? '', fail) }
    }
    case 'price_crosses': {
      const [levels = '', band, ...rest] = (value ?? '').split('/')
      if (levels.trim() === '' || rest.length > 0) fail('give the levels: price_crosses=0.25,0.5 (and /0.02 for a band other than 0.01)')
      return { price_crosses: levels.split(',').map((l) => num(l, fail)), ...(band === undefined ? {} : { hysteresis: num(band, fail) }) }
    }
    case 'trade_size_over':
      if (value === undefined || value === '') fail('give a size in shares: trade_size_over=5000')
      return { trade_size_over: num(value, fail) }
    case 'resolved':
      if (value !== undefined && value !== 'true') fail('write it as resolved, alone')
      return { resolved: true }
    default: {
      // A cut-short name (trade_size) is too far for an edit distance: a prefix says it.
      const close = (kind === '' ? undefined : KINDS.find((k) => k.startsWith(kind))) ?? suggest(kind, KINDS)
      return fail(`no condition "${kind}"${close === undefined ? '' : ` (did you mean ${close}?)`}; the conditions are ${WHEN_FORMS}`)
    }
  }
}

/** A watch's conditions in the one-line form, space-separated. */
export function formatWhen(conditions: readonly ConditionConfig[]): string {
  return conditions.map((c) => {
    if (c.midpoint_moves !== undefined) return `midpoint_moves=${c.midpoint_moves}/${c.within_seconds ?? '?'}`
    if (c.price_crosses !== undefined) return `price_crosses=${c.price_crosses.join(',')}${c.hysteresis === undefined ? '' : `/${c.hysteresis}`}`
    if (c.trade_size_over !== undefined) return `trade_size_over=${c.trade_size_over}`
    return 'resolved'
  }).join(' ')
}

function num(text: string | undefined, fail: (why: string) => never): number {
  const t = (text ?? '').trim()
  const n = Number(t)
  if (t === '' || !Number.isFinite(n)) fail(`"${t}" is not a number`)
  return n
}

/** Seconds, or a number with `s`, `m` or `h`. */
function seconds(text: string, fail: (why: string) => never): number {
  const match = /^(\d+(?:\.\d+)?)([smh]?)$/.exec(text.trim())
  if (!match) fail(`"${text}" is not a window: write seconds (600) or 10m, 1h`)
  const unit = { '': 1, s: 1, m: 60, h: 3600 }[match?.[2] ?? ''] ?? 1
  return Number(match?.[1]) * unit
}
