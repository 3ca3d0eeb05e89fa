// The hand-rolled /book reader against the valibot schema it shortcuts: whatever the fast path takes, the schema
// takes too and turns into the same book; what it leaves, the schema decides.
import * as v from 'valibot'
import { describe, expect, it } from 'vitest'
import { fastBook } from '../../src/sdk/clob/fast-book.js'
import { bestFirst, toBook } from '../../src/sdk/clob/model.js'
import { ClobBookSchema } from '../../src/sdk/wire/clob.js'
import { sample } from './helpers/stream.js'

const schema = v.pipe(ClobBookSchema, v.transform(toBook))
type Body = Record<string, unknown> & { bids: Record<string, unknown>[]; asks: Record<string, unknown>[] }
// The spec's /book sample (bids ascending, asks descending, as observed), and the stream's book frame.
const REST = JSON.stringify({
  market: '0xa467b14d6c1f0c2bd8a9f5f0e1c2d3b4a5968778695a4b3c2d1e0f9a8b7c6d5e',
  asset_id: '32338220190071351435772801779725302244575775216413325951443816017994629993401',
  timestamp: '1786483975529',
  hash: '5c0a5bcdcccf42ff587887ae9b6a4baa0c01ab8c',
  bids: [{ price: '0.001', size: '10607926.22' }, { price: '0.002', size: '2321169.67' }, { price: '0.044', size: '185934.2' }],
  asks: [{ price: '0.999', size: '1502655.66' }, { price: '0.998', size: '245464.95' }, { price: '0.047', size: '12549.43' }],
  min_order_size: '5',
  tick_size: '0.001',
  neg_risk: false,
  last_trade_price: '0.045',
})
const bodies = (): Body[] => [JSON.parse(REST) as Body, JSON.parse(sample('book')) as Body]

function expectAgreement(input: unknown): { fast: unknown; slow: unknown } {
  const fast = fastBook(input)
  const result = v.safeParse(schema, input)
  const slow = result.success ? result.output : undefined
  if (fast !== undefined) {
    expect(slow, `the schema refuses what the fast path took: ${JSON.stringify(input)}`).toBeDefined()
    expect(fast).toEqual(slow)
  }
  return { fast, slow }
}

const ODD: readonly unknown[] = [undefined, null, '', ' ', ' 0.5 ', 'abc', '1e3', '0', 'Infinity', 0, 1.5, true, false, [], {}, [{ price: '0.5', size: '1' }], 12]

describe('the fast /book reader', () => {
  it('takes the sample books and gives what the schema gives, levels best first', () => {
    for (const body of bodies()) {
      const r = expectAgreement(body)
      expect(r.fast).toBeDefined()
    }
    const book = fastBook(bodies()[0])!
    expect(book.bids.map((l) => l.price)).toEqual([0.044, 0.002, 0.001])
    expect(book.asks.map((l) => l.price)).toEqual([0.047, 0.998, 0.999])
  })

  it('agrees with the schema on malformed and unusual bodies, field by field', () => {
    let refusedByBoth = 0
    let leftToTheSchema = 0
    const check = (body: unknown): void => {
      const r = expectAgreement(body)
      if (r.fast === undefined && r.slow === undefined) refusedByBoth++
      if (r.fast === undefined && r.slow !== undefined) leftToTheSchema++
    }
    for (const odd of ODD) check(odd)
    for (const key of ['market', 'asset_id', 'timestamp', 'hash', 'bids', 'asks', 'min_order_size', 'tick_size', 'neg_risk', 'last_trade_price']) {
      for (const odd of ODD) check({ ...bodies()[0], [key]: odd })
    }
    for (const key of ['price', 'size']) {
      for (const odd of ODD) {
        const body = bodies()[0]!
        body.bids[1] = { ...body.bids[1], [key]: odd }
        check(body)
      }
    }
    for (const level of ODD) check({ ...bodies()[0], asks: [bodies()[0]!.asks[0], level] })
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const top = JSON.parse(REST.replace('{', `{"${key}": 1,`)) as unknown
      const level = JSON.parse(REST.replace('"price"', `"${key}": 1, "price"`)) as unknown
      for (const body of [top, level]) expect(expectAgreement(body)).toMatchObject({ fast: undefined, slow: expect.anything() })
    }
    expect(refusedByBoth).toBeGreaterThan(30)
    // Numeric ids: valid, and the schema's to read.
    expect(leftToTheSchema).toBe(3)
  })

  it('orders levels as a stable sort would: kept, reversed when strictly opposite, else sorted', () => {
    const levels = (prices: number[]) => prices.map((price, i) => ({ price, size: i }))
    for (const prices of [[], [1], [3, 2, 1], [1, 2, 3], [1, 1, 2], [2, 1, 1], [2, 3, 1], [1, 2, 2, 3], [0.5, 0.5]]) {
      for (const best of ['high', 'low'] as const) {
        const sorted = levels(prices).sort((a, b) => (best === 'high' ? b.price - a.price : a.price - b.price))
        expect(bestFirst(levels(prices), best)).toEqual(sorted)
      }
    }
  })
})
