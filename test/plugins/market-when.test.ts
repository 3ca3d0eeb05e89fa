/**
 * The one-line `--when` form of a watch's conditions (docs/market-alerts.md, "Adding a watch without a
 * restart"): each form becomes the condition config.yaml writes, and back; a wrong one says what to write.
 */
import { readFileSync } from 'node:fs'
import * as v from 'valibot'
import { parse as parseYaml } from 'yaml'
import { describe, expect, it } from 'vitest'
import { marketOptions, watchSchema } from '../../src/plugins/sources/market/options.js'
import { parseWatchEntry } from '../../src/plugins/sources/market/watch-entry.js'
import { formatWhen, parseWhen } from '../../src/plugins/sources/market/when-syntax.js'

describe('--when', () => {
  it('reads each form as the condition of a config watch, and formats it back the same way', () => {
    const flags = ['midpoint_moves=0.05/600', 'price_crosses=0.25,0.5', 'price_crosses=0.75/0.02', 'trade_size_over=5000', 'resolved']
    const when = flags.map(parseWhen)
    expect(when).toEqual([
      { midpoint_moves: 0.05, within_seconds: 600 }, { price_crosses: [0.25, 0.5] }, { price_crosses: [0.75], hysteresis: 0.02 },
      { trade_size_over: 5000 }, { resolved: true },
    ])
    const watch = v.parse(watchSchema, { market: 'some-slug', when })
    expect(formatWhen(watch.when)).toBe(flags.join(' '))
  })

  it('takes a window in minutes or hours', () => {
    expect(parseWhen('midpoint_moves=0.1/10m')).toEqual({ midpoint_moves: 0.1, within_seconds: 600 })
    expect(parseWhen('midpoint_moves=0.1/1h')).toEqual({ midpoint_moves: 0.1, within_seconds: 3600 })
  })

  it('says what to write instead of a wrong form', () => {
    expect(() => parseWhen('midpoint_moves=0.05')).toThrow('--when "midpoint_moves=0.05": a move needs its window: midpoint_moves=0.05/600')
    expect(() => parseWhen('price_crosses=')).toThrow('give the levels: price_crosses=0.25,0.5')
    expect(() => parseWhen('price_crosses=0.25,half')).toThrow('"half" is not a number')
    expect(() => parseWhen('trade_size=100')).toThrow('no condition "trade_size" (did you mean trade_size_over?)')
    expect(() => parseWhen('resolved=false')).toThrow('write it as resolved, alone')
    expect(() => parseWhen('midpoint_moves=0.05/soon')).toThrow('"soon" is not a window')
  })

  it('checks a subscribed watch with the config schema: bad values and keys are reasons, not crashes', () => {
    expect(parseWatchEntry('ok', { market: 'x', when: [{ resolved: true }], created_at: '2026-01-01T00:00:00Z' })).toMatchObject({ ok: true })
    expect(parseWatchEntry('big', { market: 'x', when: [parseWhen('midpoint_moves=5/600')] })).toEqual({ ok: false, reason: 'when.0.midpoint_moves: a price below 1' })
    expect(parseWatchEntry('Bad Name', { market: 'x', when: [{ resolved: true }] })).toMatchObject({ ok: false, reason: expect.stringContaining('a watch name is 1 to 64') })
    expect(parseWatchEntry('extra', { market: 'x', when: [{ resolved: true }], secret: 's' })).toEqual({ ok: false, reason: 'secret: unknown key' })
    expect(parseWatchEntry('list', [])).toMatchObject({ ok: false })
  })
})

describe('examples/config.yaml', () => {
  it('holds a commented market watch that is valid once uncommented, and a subscribe line whose --when flags are too', () => {
    const lines = readFileSync('examples/config.yaml', 'utf8').split('\n')
    const start = lines.findIndex((l) => /^ {2}# market:/.test(l))
    const block = lines.slice(start).filter((l) => /^ {2}# {1,}\S/.test(l) && !l.includes('hookpilot subscribe') && !/^ {2}# [A-Z]/.test(l))
    const yaml = block.map((l) => l.replace(/^ {2}# /, '')).join('\n')
    const market = (parseYaml(yaml) as { market: unknown }).market
    const parsed = v.parse(marketOptions, market)
    expect(Object.keys(parsed.extra.watches)).toEqual(['fed-cut'])
    const command = lines.find((l) => l.includes('hookpilot subscribe --market')) ?? ''
    const when = [...command.matchAll(/--when (\S+)/g)].map((m) => parseWhen(m[1] ?? ''))
    expect(when).toHaveLength(2)
    expect(parseWatchEntry(/--name (\S+)/.exec(command)?.[1] ?? '', { market: /--market (\S+)/.exec(command)?.[1], when })).toMatchObject({ ok: true })
  })
})

