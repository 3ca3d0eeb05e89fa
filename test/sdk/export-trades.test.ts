// The trades export (issue 23, item 1): past the offset cap it splits by side, then by wallet, exports each trade
// once, and says with counts what it could not reach.
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runExport, tradesExport } from '../../src/sdk/export/index.js'
import type { Trade } from '../../src/sdk/index.js'
import { routerClient } from './helpers/router-client.js'

// 36,000 trades in the mock: 12,000 sells, all by the first wallet; 24,000 buys, 12,000 by each of two others.
const BUSY = 'will-spain-win-the-2026-world-cup'
const file = async (name: string) => join(await mkdtemp(join(tmpdir(), 'hookpilot-trades-')), name)
const keyOf = (t: { transactionHash: string | null; tokenId: string | null; wallet: string | null }) => `${t.transactionHash}|${t.tokenId}|${t.wallet}`

describe('trades export', () => {
  it('splits past the offset cap by side and wallet, exports each trade once, and reports what it could not reach', async () => {
    // Answers of 500 (the real service allows more than the mock's default 10); no budget, so no waiting.
    const { pm, requests } = routerClient({ rateLimit: false }, { tradesPage: 500 })
    const path = await file('t.jsonl')
    const summary = await runExport(await tradesExport(pm, BUSY, { api: 'v1' }), { file: path, format: 'jsonl' })

    // Everything the mock has, read in one answer at offset 0 (past the service's rules, for the test only).
    const all = await routerClient({ rateLimit: false }, { tradesPage: 50_000 }).pm.trades.where({ market: (await pm.markets.bySlug(BUSY)).conditionId }).limit(50_000).list()
    expect(all).toHaveLength(36_000)
    const newest = (ts: Trade[]) => ts.slice(0, 10_500)
    const by = (side: string, wallet?: string) => all.filter((t) => t.side === side && (wallet === undefined || t.wallet === wallet))
    const [w0, w1, w2] = ['0xceb57e549f8aa0627f4a4c6004bc8951d78ea27b', '0x1111111111111111111111111111111111111111', '0x2222222222222222222222222222222222222222']
    const reachable = new Set([...newest(by('buy')), ...newest(by('buy', w1)), ...newest(by('buy', w2)), ...newest(by('sell')), ...newest(by('sell', w0))].map(keyOf))

    const rows = (await readFile(path, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as { transactionHash: string; tokenId: string; wallet: string })
    const exported = rows.map(keyOf)
    expect(new Set(exported).size).toBe(exported.length)
    expect(new Set(exported)).toEqual(reachable)
    expect(summary.rows).toBe(reachable.size)
    // What it could not reach, counted from the mock: the summary names each part that hit the cap.
    const buysRecovered = by('buy').filter((t) => reachable.has(keyOf(t))).length - 10_500
    expect(36_000 - summary.rows).toBe(36_000 - reachable.size)
    expect(36_000 - summary.rows).toBeGreaterThan(0)
    expect(summary.unreached.map((u) => [u.part, u.reached])).toEqual([
      ['side=BUY', 10_500 + buysRecovered],
      ['side=SELL', 10_500],
      [`side=BUY user=${w1}`, expect.any(Number)],
      [`side=BUY user=${w2}`, expect.any(Number)],
      [`side=SELL user=${w0}`, 0],
    ])
    expect(summary.unreached[0]?.reason).toMatch(/2 wallet\(s\) walked on their own found [\d,]+ older trade\(s\)/)
    expect(summary.unreached[0]?.olderThan).toBe(by('buy')[10_499]?.timestamp)
    // Never past the cap: the deepest offset asked for is 10,000.
    expect(Math.max(...requests.filter((u) => u.pathname === '/trades').map((u) => Number(u.searchParams.get('offset'))))).toBe(10_000)
  })

  it('exports a small market whole, from --since, with nothing unreached', async () => {
    const { pm } = routerClient()
    const all = await pm.market(await pm.markets.bySlug('will-1-fed-rate-cut-happen-in-2025')).trades().limit(100).list()
    const since = all[19]?.timestamp ?? 0
    const path = await file('t.csv')
    const summary = await runExport(await tradesExport(pm, 'will-1-fed-rate-cut-happen-in-2025', { since, api: 'v1' }), { file: path, format: 'csv' })
    expect(summary).toMatchObject({ rows: 20, unreached: [], from: since, to: all[0]?.timestamp })
    const [head, first] = (await readFile(path, 'utf8')).split('\r\n')
    expect(head).toBe('timestamp,time,side,outcome,outcomeIndex,price,size,tokenId,wallet,transactionHash,conditionId')
    expect(first).toMatch(/^\d+,"[^"]+","(buy|sell)","(Yes|No)",[01],0\.\d+,[\d.]+,"\d+","0x[0-9a-f]+","0x[0-9a-f]+a*","0x[0-9a-f]+"$/)
  })
})
