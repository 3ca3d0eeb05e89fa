// `hookpilot/sdk/export` history (issue 23, item 1): a resolved market's whole life through many 15-day windows
// equals the mock's series; CSV with a header and bare numbers; an interrupted export resumes to the same file.
import { mkdtemp, readFile, appendFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkpointOf, historyExport, runExport } from '../../src/sdk/export/index.js'
import { mockHistory } from '../../src/sdk/mock/clob.js'
import { MOCK_NOW, routerClient } from './helpers/router-client.js'

const RESOLVED = 'microstrategy-sells-any-bitcoin-by-may-31-2026'
const YES = '25714007960293389110960044475283546872601238755063051359394740854408462452120'
const NO = '3192689304828767159232889612891719105504357313659012189260030438494464480574'
// Its life in the mock: created 2025-02-03 12:00, trading until its end date 2026-07-01 04:00.
const SINCE = Date.UTC(2025, 0, 1) / 1000
const UNTIL = Date.UTC(2026, 6, 2) / 1000

const dir = () => mkdtemp(join(tmpdir(), 'hookpilot-export-'))
const lines = (text: string) => text.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)

describe('history export', () => {
  it("a resolved market's full history, through many windows, equals the mock's series", async () => {
    const { pm, requests } = routerClient()
    const file = join(await dir(), 'h.jsonl')
    const summary = await runExport(await historyExport(pm, RESOLVED, { since: SINCE, until: UNTIL, fidelity: 60 }), { file, format: 'jsonl' })

    const expected = [YES, NO]
      .flatMap((token, index) => mockHistory(token, SINCE, UNTIL, 60, MOCK_NOW).map((pt) => ({ ...pt, index, token })))
      .sort((a, b) => a.t - b.t || a.index - b.index)
    const rows = lines(await readFile(file, 'utf8'))
    expect(rows.map((r) => [r['t'], r['outcomeIndex'], r['p'], r['tokenId']])).toEqual(expected.map((e) => [e.t, e.index, e.p, e.token]))
    expect(rows.length).toBeGreaterThan(20_000)
    expect(rows[0]).toMatchObject({ outcome: 'Yes', market: RESOLVED, time: new Date((rows[0]?.['t'] as number) * 1000).toISOString() })

    // 37 windows of at most 15 days, each asked for both outcomes; the service would refuse a longer one.
    const windows = requests.filter((u) => u.pathname === '/prices-history')
    expect(windows).toHaveLength(37 * 2)
    for (const u of windows) expect(Number(u.searchParams.get('endTs')) - Number(u.searchParams.get('startTs'))).toBeLessThanOrEqual(15 * 86_400)
    expect(summary).toMatchObject({ rows: expected.length, from: expected[0]?.t, to: expected.at(-1)?.t, gapCount: 0, resumed: false })
  })

  it('the whole-life interval of a resolved market is empty: that is why the export asks for windows', async () => {
    const { pm } = routerClient()
    expect(await pm.token(YES).history({ interval: 'all' })).toEqual([])
    await expect(pm.token(YES).history({ start: SINCE, end: SINCE + 15 * 86_400 + 1 })).rejects.toThrow(/interval is too long/)
  })

  it('writes CSV with a header, numbers bare and text (ids too) quoted', async () => {
    const { pm } = routerClient()
    const file = join(await dir(), 'h.csv')
    await runExport(await historyExport(pm, YES, { since: Date.UTC(2026, 5, 1) / 1000, until: Date.UTC(2026, 5, 2) / 1000, fidelity: 720 }), { file, format: 'csv' })
    const [head, first, ...rest] = (await readFile(file, 'utf8')).split('\r\n')
    expect(head).toBe('t,time,outcome,outcomeIndex,p,tokenId,market')
    expect(first).toMatch(new RegExp(`^1780272000,"2026-06-01T00:00:00.000Z","Yes",0,0\\.\\d+,"${YES}","${RESOLVED}"$`))
    expect(rest).toEqual([expect.stringMatching(/^1780315200,/), expect.stringMatching(/^1780358400,/), ''])
  })

  it('an interrupted export, even cut in the middle of a step, resumes to the same file as an uninterrupted one', async () => {
    const where = await dir()
    const opts = { since: SINCE, until: UNTIL, fidelity: 180 }
    const whole = join(where, 'whole.jsonl')
    await runExport(await historyExport(routerClient().pm, RESOLVED, opts), { file: whole, format: 'jsonl' })

    const file = join(where, 'cut.jsonl')
    const stop = new AbortController()
    const first = runExport(await historyExport(routerClient().pm, RESOLVED, opts), {
      file,
      format: 'jsonl',
      signal: stop.signal,
      onProgress: ({ done }) => done === 11 && stop.abort(new Error('stopped')),
    })
    await expect(first).rejects.toThrow('stopped')
    expect(JSON.parse(await readFile(checkpointOf(file), 'utf8'))).toMatchObject({ state: { window: 11 } })
    // A step whose rows were written but whose checkpoint was not: the resumed run must drop them.
    await appendFile(file, '{"t":1,"half written')
    const summary = await runExport(await historyExport(routerClient().pm, RESOLVED, opts), { file, format: 'jsonl' })
    expect(summary.resumed).toBe(true)
    expect(await readFile(file, 'utf8')).toBe(await readFile(whole, 'utf8'))
    await expect(readFile(checkpointOf(file))).rejects.toThrow(/ENOENT/)
  })

  it('refuses to resume another export from a checkpoint', async () => {
    const file = join(await dir(), 'h.jsonl')
    await writeFile(file, '')
    await writeFile(checkpointOf(file), JSON.stringify({ version: 1, kind: 'trades', job: {}, format: 'jsonl', state: {}, bytes: 0, rows: 0, from: null, to: null }))
    const walk = await historyExport(routerClient().pm, YES, { since: SINCE, until: SINCE + 86_400, fidelity: 60 })
    await expect(runExport(walk, { file, format: 'jsonl' })).rejects.toThrow(/belongs to another export/)
  })
})
