// The trades export on the Data API v2 (issue 37, item 4): one cursor walk of the mock's v2 feed with no offset cap,
// resumed from the cursor its checkpoint keeps (no duplicate, no gap), a completeness report, and v1 as the
// fallback where v2 answers 404 or v1 is asked for.
import { appendFile, mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkpointOf, runExport, tradesExport, type TradesV2State } from '../../src/sdk/export/index.js'
import { createMarketClient } from '../../src/sdk/index.js'
import { createMockMarketRouter } from '../../src/sdk/mock/router.js'
import { MOCK_NOW, routerClient } from './helpers/router-client.js'

// 36,000 trades in the mock's busy market: v1 reaches about two thirds of them past its offset cap, v2 all.
const BUSY = 'will-spain-win-the-2026-world-cup'
const SMALL = 'will-1-fed-rate-cut-happen-in-2025'
const file = async (name: string) => join(await mkdtemp(join(tmpdir(), 'hookpilot-trades-v2-')), name)
const keyOf = (t: { transactionHash: string | null; tokenId: string | null; wallet: string | null; side: string; size: number; price: number }) =>
  `${t.transactionHash}|${t.tokenId}|${t.wallet}|${t.side}|${t.size}|${t.price}`
const rowsOf = async (path: string) => (await readFile(path, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Parameters<typeof keyOf>[0] & { timestamp: number })

/** A client over the mock whose Data API has no v2: every `/v2/` path answers 404, as a service without it would. */
function v1OnlyClient() {
  const router = createMockMarketRouter({ now: () => MOCK_NOW, rateLimits: false })
  const requests: URL[] = []
  const pm = createMarketClient({
    rateLimit: false,
    retry: { sleep: async () => {} },
    fetch: async (input, init) => {
      const request = new Request(input, init)
      const url = new URL(request.url)
      requests.push(url)
      if (url.pathname.startsWith('/v2/')) return new Response('{"error":"not found"}', { status: 404, headers: { 'content-type': 'application/json' } })
      return (await router(request)) ?? new Response('{"error":"not routed"}', { status: 599 })
    },
  })
  return { pm, requests }
}

describe('trades export on the Data API v2', () => {
  it("walks the busy market's whole v2 feed by cursor: every trade once, no offset, no split, complete", async () => {
    const { pm, requests } = routerClient({ rateLimit: false })
    const path = await file('t.jsonl')
    const summary = await runExport(await tradesExport(pm, BUSY, { pageSize: 1000 }), { file: path, format: 'jsonl' })
    const asked = [...requests]

    const conditionId = (await pm.markets.bySlug(BUSY)).conditionId
    const feed = await pm.v2.trades.where({ condition: conditionId }).limit(1000).toArray({ max: 100_000 })
    expect(feed).toHaveLength(36_000)
    const rows = await rowsOf(path)
    expect(rows.map(keyOf)).toEqual(feed.map(keyOf))
    expect(new Set(rows.map(keyOf)).size).toBe(36_000)
    expect(summary).toMatchObject({ rows: 36_000, unreached: [], resumed: false })
    expect(summary.completeness).toMatchObject({ source: 'Data API v2 /v2/trades', fallback: null, reported: null, complete: true, holes: [] })
    expect(summary.completeness?.ended).toBe('read to the last page (36 page(s))')
    // One walk: v2 pages only, the same condition on each, never an offset or a side or wallet filter.
    const trades = asked.filter((u) => u.pathname.includes('trades'))
    expect(trades.every((u) => u.pathname === '/v2/trades' && u.searchParams.get('condition') === conditionId)).toBe(true)
    expect(trades.some((u) => u.searchParams.has('offset') || u.searchParams.has('side') || u.searchParams.has('user'))).toBe(false)
    expect(trades).toHaveLength(36)
  })

  it('resumes from the cursor in its checkpoint: the file ends equal to an uninterrupted run, without duplicates or gaps', async () => {
    const whole = await file('whole.csv')
    await runExport(await tradesExport(routerClient({ rateLimit: false }).pm, BUSY), { file: whole, format: 'csv' })

    const { pm, requests } = routerClient({ rateLimit: false })
    const path = await file('t.csv')
    const stop = new AbortController()
    // Stopped once 10 pages of 500 are written: the 11th step never starts.
    const interrupted = runExport(await tradesExport(pm, BUSY), { file: path, format: 'csv', signal: stop.signal, onProgress: (p) => p.rows >= 5_000 && stop.abort() })
    await expect(interrupted).rejects.toThrow()
    const checkpoint = JSON.parse(await readFile(checkpointOf(path), 'utf8')) as { rows: number; bytes: number; state: TradesV2State }
    expect(checkpoint.rows).toBe(5_000)
    expect(checkpoint.state).toMatchObject({ api: 'v2', steps: 10, rows: 5_000, ended: null })
    const saved = checkpoint.state.after
    expect(saved).toEqual(expect.any(String))
    // A step cut short by a kill leaves rows past the checkpoint's length: the resume drops them.
    await appendFile(path, '1700000000,"half a row of a page that was never checkpointed"\r\n')

    requests.length = 0
    const summary = await runExport(await tradesExport(pm, BUSY), { file: path, format: 'csv' })
    expect(summary).toMatchObject({ rows: 36_000, resumed: true, completeness: { complete: true } })
    expect(await readFile(path, 'utf8')).toBe(await readFile(whole, 'utf8'))
    // It went on at the saved cursor: the first page asked for after the resume is the one after the last written.
    const pages = requests.filter((u) => u.pathname === '/v2/trades')
    expect(pages[0]?.searchParams.get('cursor')).toBe(saved)
    expect(pages.every((u) => u.searchParams.has('cursor'))).toBe(true)
    expect(pages).toHaveLength(72 - 10)
  })

  it('ends at --since, the oldest row kept no older than it', async () => {
    const { pm } = routerClient({ rateLimit: false })
    const conditionId = (await pm.markets.bySlug(BUSY)).conditionId
    const feed = await pm.v2.trades.where({ condition: conditionId }).limit(1000).toArray({ max: 3_000 })
    const since = feed[2_499]?.timestamp ?? 0
    const path = await file('t.jsonl')
    const summary = await runExport(await tradesExport(pm, BUSY, { since }), { file: path, format: 'jsonl' })
    const wanted = feed.filter((t) => t.timestamp >= since)
    expect((await rowsOf(path)).map(keyOf)).toEqual(wanted.map(keyOf))
    expect(summary.completeness).toMatchObject({ complete: true, ended: expect.stringContaining('read back to --since') })
  })
})

describe('trades export falling back to v1', () => {
  it('reads v1 where v2 answers 404, and says so in its completeness report', async () => {
    const { pm, requests } = v1OnlyClient()
    const path = await file('t.jsonl')
    const summary = await runExport(await tradesExport(pm, SMALL), { file: path, format: 'jsonl' })
    const all = await routerClient().pm.market(await pm.markets.bySlug(SMALL)).trades().limit(1_000).list()
    expect(new Set((await rowsOf(path)).map(keyOf))).toEqual(new Set(all.map(keyOf)))
    expect(summary.rows).toBe(all.length)
    expect(summary.completeness).toMatchObject({ source: 'Data API v1 /trades', fallback: 'the Data API v2 answered 404 for /v2/trades', complete: true, holes: [] })
    expect(requests.filter((u) => u.pathname === '/v2/trades')).toHaveLength(1)
    expect(requests.filter((u) => u.pathname === '/trades').length).toBeGreaterThan(0)
  })

  it('reads only v1 when asked, naming what its offset cap kept out as holes', async () => {
    const { pm, requests } = routerClient({ rateLimit: false }, { tradesPage: 500 })
    const path = await file('t.jsonl')
    const summary = await runExport(await tradesExport(pm, BUSY, { api: 'v1' }), { file: path, format: 'jsonl' })
    expect(requests.some((u) => u.pathname.startsWith('/v2/'))).toBe(false)
    expect(summary.rows).toBeLessThan(36_000)
    expect(summary.completeness).toMatchObject({ source: 'Data API v1 /trades', fallback: 'v1 was asked for (--api v1)', complete: false })
    expect(summary.completeness?.holes).toHaveLength(summary.unreached.length)
    expect(summary.completeness?.holes[0]).toMatch(/^side=BUY: trades older than \d{4}-\d\d-\d\dT.* not reached \(the offset cap/)
  })

  it('does not fall back when v2 was asked for', async () => {
    const { pm } = v1OnlyClient()
    await expect(runExport(await tradesExport(pm, SMALL, { api: 'v2' }), { file: await file('t.jsonl'), format: 'jsonl' })).rejects.toMatchObject({ status: 404 })
  })
})
