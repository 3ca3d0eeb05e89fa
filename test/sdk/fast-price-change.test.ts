// The stream's hand-rolled price_change reader against the valibot schema it shortcuts: whatever the fast path
// takes, the schema takes too and turns into the same event; what it leaves, the schema decides.
import { readdirSync } from 'node:fs'
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { toPriceChangeEvent, type PriceChangeEvent, type StreamEvent } from '../../src/sdk/stream/events.js'
import { fastPriceChange } from '../../src/sdk/stream/fast-price-change.js'
import { parseFrame } from '../../src/sdk/stream/parse.js'
import { PriceChangeSchema } from '../../src/sdk/stream/wire.js'
import { sample } from './helpers/stream.js'

const schema = v.pipe(PriceChangeSchema, v.transform(toPriceChangeEvent))

/** The fast path's answer beside the schema's, for one element. */
function both(input: Record<string, unknown>) {
  const fast = fastPriceChange(input)
  const slow = v.safeParse(schema, input)
  return { fast, slow: slow.success ? slow.output : undefined }
}

/** Whatever the fast path takes, the schema takes and makes the same event of (the raw frame's key order aside). */
function expectAgreement(input: Record<string, unknown>): ReturnType<typeof both> {
  const r = both(input)
  if (r.fast !== undefined) {
    expect(r.slow, `the schema refuses what the fast path took: ${JSON.stringify(input)}`).toBeDefined()
    expect(r.fast).toEqual(r.slow)
  }
  return r
}

const sampleNames = readdirSync(new URL('./fixtures/stream/', import.meta.url)).map((f) => f.replace(/\.json$/, ''))
const sampleElements = (name: string): Record<string, unknown>[] => {
  const parsed = JSON.parse(sample(name)) as Record<string, unknown> | Record<string, unknown>[]
  return Array.isArray(parsed) ? parsed : [parsed]
}
const base = (): Record<string, unknown> & { price_changes: Record<string, unknown>[] } =>
  JSON.parse(sample('price_change')) as Record<string, unknown> & { price_changes: Record<string, unknown>[] }

/** Values a field can take on a broken or odd channel, each tried in every field. */
const ODD: readonly unknown[] = [undefined, null, '', ' ', '  0.5 ', 'abc', '0x1f', '1e3', '0', '-0', 'Infinity', 'NaN', 0, 1.5, -2, true, [], {}, ['0.5'], 'buy', 'Buy', 'BUY ', 'sell', 'SELL', 'BUY', 12345678901234567890n.toString()]

describe('the fast price_change reader', () => {
  it('takes every sample price_change in the current shape, and gives what the schema gives', () => {
    let taken = 0
    for (const name of sampleNames) {
      for (const element of sampleElements(name)) {
        const r = expectAgreement(element)
        if (element['event_type'] === 'price_change' && Array.isArray(element['price_changes'])) {
          expect(r.fast, name).toBeDefined()
          taken++
        } else {
          // Other event types, and the retired shape: not for the fast path.
          expect(r.fast, name).toBeUndefined()
        }
      }
    }
    expect(taken).toBe(2)
  })

  it('agrees with the schema on malformed and unusual frames, field by field', () => {
    let refusedByBoth = 0
    let leftToTheSchema = 0
    const check = (frame: Record<string, unknown>): void => {
      const r = expectAgreement(frame)
      if (r.fast === undefined && r.slow === undefined) refusedByBoth++
      if (r.fast === undefined && r.slow !== undefined) leftToTheSchema++
    }
    for (const key of ['market', 'timestamp', 'price_changes']) {
      for (const odd of ODD) check({ ...base(), [key]: odd })
    }
    for (const key of ['asset_id', 'price', 'size', 'side', 'hash', 'best_bid', 'best_ask']) {
      for (const odd of ODD) {
        const frame = base()
        frame.price_changes[1] = { ...frame.price_changes[1], [key]: odd }
        check(frame)
        const missing = base()
        delete missing.price_changes[0]![key]
        check(missing)
      }
    }
    for (const entry of ODD) check({ ...base(), price_changes: [base().price_changes[0], entry] })
    expect(refusedByBoth).toBeGreaterThan(50)
    // Lower-case sides, numeric ids: valid, and the schema's to read.
    expect(leftToTheSchema).toBeGreaterThan(5)
  })

  it('leaves a frame with a key the schema drops (__proto__, constructor, prototype) to the schema', () => {
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const top = JSON.parse(sample('price_change').replace('{', `{"${key}": {"x": 1},`)) as Record<string, unknown>
      expect(Object.hasOwn(top, key)).toBe(true)
      expect(both(top).fast).toBeUndefined()
      expect(both(top).slow).toBeDefined()
      const inner = JSON.parse(sample('price_change').replace('"asset_id"', `"${key}": 1, "asset_id"`)) as Record<string, unknown>
      expect(both(inner).fast).toBeUndefined()
      expect(both(inner).slow).toBeDefined()
    }
  })

  it('gives the stream the same events either way, through parseFrame', () => {
    const events = (text: string): { events: StreamEvent[]; reasons: string[] } => {
      const out: StreamEvent[] = []
      const reasons: string[] = []
      parseFrame(text, (_, reason) => reasons.push(reason), (e) => out.push(e))
      return { events: out, reasons }
    }
    const fast = events(sample('price_change'))
    expect(fast.reasons).toEqual([])
    expect(fast.events).toEqual([v.parse(schema, JSON.parse(sample('price_change')))])
    // A lower-case side is valid: the schema reads it (the fast path only takes capitals).
    const lower = events(sample('price_change').replace('"SELL"', '"sell"'))
    expect(lower.events).toHaveLength(1)
    expect((lower.events[0] as PriceChangeEvent).changes[1]!.side).toBe('sell')
    // A blank price is refused by both, and reported with the schema's path.
    const blank = events(sample('price_change').replace('"price": "0.50"', '"price": " "'))
    expect(blank.events).toEqual([])
    expect(blank.reasons).toEqual([expect.stringMatching(/^malformed price_change: price_changes\.0\.price: /)])
  })
})
