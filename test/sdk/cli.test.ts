// `hookpilot market` driven through runMarket with a fake CliIO; --mock starts the real mock server on port 0.
import { describe, expect, it, vi } from 'vitest'
import { runMarket } from '../../src/cli/market/index.js'
import { startMockMarketServer } from '../../src/sdk/mock/server.js'
import type { CliIO } from '../../src/cli/io.js'

function fakeIO(tty = false) {
  const out: string[] = []
  const err: string[] = []
  const stream = (sink: string[]) => ({ isTTY: tty, write: (s: string) => (sink.push(s), true) }) as unknown as CliIO['stdout']
  const io: CliIO = { stdout: stream(out), stderr: stream(err), env: {}, cwd: process.cwd() }
  return { io, stdout: () => out.join(''), stderr: () => err.join('') }
}

async function market(...args: string[]) {
  const f = fakeIO()
  const code = await runMarket(args, f.io)
  return { code, stdout: f.stdout(), stderr: f.stderr() }
}

describe('hookpilot market', () => {
  it('lists open markets as a table across several pages', async () => {
    const r = await market('markets', '--mock', '--limit', '8', '--order', 'volume')
    expect(r.code).toBe(0)
    const lines = r.stdout.trim().split('\n')
    expect(lines[0]).toMatch(/^QUESTION\s+FIRST OUTCOME\s+OUTCOMES\s+VOLUME\s+STATE\s+SLUG$/)
    expect(lines).toHaveLength(2 + 8)
    expect(lines[2]).toContain('Who will win the 2028 presidential election?')
    // A multi-outcome market's first outcome is a name, not "Yes"; a binary market's is Yes.
    expect(lines[2]).toMatch(/election\?\s+Alice 46%\s+3\s/)
    expect(lines.find((l) => l.includes('will-2-fed-rate-cuts-happen-in-2025'))).toMatch(/\s+Yes 64%\s+2\s/)
    expect(r.stderr).toBe('')
  })

  it('prints JSON for scripts, without the raw wire copies', async () => {
    const r = await market('events', '--mock', '--closed', '--json')
    const events = JSON.parse(r.stdout) as { slug: string; closed: boolean; raw?: unknown }[]
    expect(events.map((e) => e.slug)).toEqual(['microstrategy-sell-any-bitcoin-in-2025'])
    expect(events[0]?.raw).toBeUndefined()
  })

  it('sorts events ascending with --asc', async () => {
    const r = await market('events', '--mock', '--order', 'volume', '--asc', '--limit', '3', '--json')
    const volumes = (JSON.parse(r.stdout) as { volume: number }[]).map((e) => e.volume)
    expect(volumes).toEqual([...volumes].sort((a, b) => a - b))
    expect(volumes[0]).toBe(1200)
  })

  it('filters markets by tag and searches', async () => {
    const tagged = await market('markets', '--mock', '--tag', 'sports', '--json')
    expect((JSON.parse(tagged.stdout) as unknown[]).length).toBe(3)
    const found = await market('search', 'bitcoin', '--mock')
    expect(found.stdout).toContain('bitcoin-above-on-august-15')
    expect(found.stdout).toContain('Tags: bitcoin')
  })

  it('shows a book by slug and by token, best levels first', async () => {
    const bySlug = await market('book', 'will-2-fed-rate-cuts-happen-in-2025', '--mock', '--depth', '2')
    expect(bySlug.code).toBe(0)
    expect(bySlug.stdout).toMatch(/BIDS \(best first\)[\s\S]*64%[\s\S]*63%[\s\S]*ASKS \(best first\)[\s\S]*65%/)
    const token = '10051672510051672510051672510051672510051672510051672510051672510051672510051'
    const byToken = await market('book', token, '--mock', '--json')
    expect(JSON.parse(byToken.stdout)).toMatchObject({ tokenId: token, bids: [{ price: 0.64 }, {}, {}] })
  })

  it('draws the history as a chart', async () => {
    const r = await market('history', 'will-1-fed-rate-cut-happen-in-2025', '--mock', '--interval', '1d')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('1d, ')
    expect(r.stdout).toMatch(/┤[ ▁▂▃▄▅▆▇█]+/)
    expect(r.stdout).toContain('└──')
  })

  it('charts a resolved market over a --start/--end window, and points an empty chart at one', async () => {
    const closed = 'microstrategy-sells-any-bitcoin-by-may-31-2026'
    const whole = await market('history', closed, '--mock', '--interval', 'max')
    expect(whole.code).toBe(0)
    expect(whole.stdout).toContain('0 points')
    // The 15 days up to the midnight after it closed (2026-06-04 00:34 UTC).
    expect(whole.stdout).toContain('--start 2026-05-21 --end 2026-06-05')
    expect(whole.stdout).not.toContain('└──')

    const r = await market('history', closed, '--mock', '--start', '2026-05-21', '--end', '2026-06-05')
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('2026-05-21 00:00 to 2026-06-05 00:00 UTC')
    expect(r.stdout).toMatch(/┤[ ▁▂▃▄▅▆▇█]+/)
    const start = Date.UTC(2026, 4, 21) / 1000
    const end = Date.UTC(2026, 5, 5) / 1000
    const points = JSON.parse((await market('history', closed, '--mock', '--start', String(start), '--end', '2026-06-05T00:00:00Z', '--json')).stdout) as { t: number }[]
    expect(points.length).toBeGreaterThan(0)
    expect(points.every((p) => p.t >= start && p.t <= end)).toBe(true)
    // --end alone: the 15 days before it.
    const before = await market('history', closed, '--mock', '--end', '2026-06-05', '--fidelity', '720')
    expect(before.stdout).toContain('2026-05-21 00:00 to 2026-06-05 00:00 UTC, 31 points')
  })

  it('checks a history window before any request', async () => {
    const slug = 'will-1-fed-rate-cut-happen-in-2025'
    const long = await market('history', slug, '--start', '2026-05-01', '--end', '2026-05-17')
    expect(long.code).toBe(2)
    expect(long.stderr).toContain('is 16 days; the price-history service answers at most 15 days per request')
    expect(await market('history', slug, '--start', '2026-05-01', '--interval', '1d')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('either --interval or a --start/--end window, not both'),
    })
    for (const bad of ['2026-02-30', 'May 1', '20260501', '1777593600000']) {
      expect(await market('history', slug, '--start', bad)).toMatchObject({
        code: 2,
        stderr: expect.stringContaining(`--start must be a date such as 2026-05-01`),
      })
    }
    expect((await market('history', slug, '--start', '2026-06-05', '--end', '2026-06-01')).stderr).toContain('must be before --end')
    expect((await market('history', slug, '--start', '2999-01-01')).stderr).toContain('--start (2999-01-01 00:00 UTC) is in the future')
    // Exactly 15 days is the service's limit, not past it; an offset is honoured.
    expect((await market('history', slug, '--mock', '--start', '2026-05-01T02:00+02:00', '--end', '2026-05-16')).code).toBe(0)
  })

  it('lists trades and open interest of a market', async () => {
    const trades = await market('trades', 'microstrategy-sells-any-bitcoin-by-may-31-2026', '--mock', '--limit', '15', '--side', 'buy')
    const rows = trades.stdout.trim().split('\n').slice(2)
    expect(rows).toHaveLength(15)
    expect(rows.every((r) => r.includes('BUY'))).toBe(true)
    const oi = await market('oi', 'will-1-fed-rate-cut-happen-in-2025', '--mock')
    expect(oi.stdout).toContain('Open interest: $412,331.1')
    expect(oi.stdout).toContain('Open interest: $412,331.10\n')
    // A market the service has no figure for is unknown, not $0.00.
    const fresh = await market('oi', 'will-the-new-index-launch-by-friday', '--mock')
    expect(fresh).toMatchObject({ code: 0, stdout: expect.stringContaining('Open interest: unknown\n') })
    const json = await market('oi', 'will-the-new-index-launch-by-friday', '--mock', '--json')
    expect(JSON.parse(json.stdout)).toMatchObject({ openInterest: null })
  })

  it('explains bad input with exit code 2 and what to change', async () => {
    expect(await market('history', 'x', '--interval', '2w')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--interval must be one of 1h, 6h, 1d, 1w, 1m, max, all (got "2w")'),
    })
    expect((await market('markets', '--limit', 'lots')).stderr).toContain('--limit must be a whole number')
    expect((await market('book')).stderr).toContain('missing <token|slug>')
    expect((await market('markets', '--bogus')).stderr).toMatch(/Unknown option '--bogus'/)
    // Only the fact, not parseArgs' advice about '--' with its unbalanced quotes.
    expect((await market('markets', '--bogus')).stderr).toBe("hookpilot market markets: Unknown option '--bogus' (see --help)\n")
    expect((await market('frobnicate')).stderr).toContain('unknown command "frobnicate"')
    expect((await market('trades', '123456789012345')).stderr).toContain("give the market's slug")
  })

  it('reports a service error with exit code 1 and a hint', async () => {
    const r = await market('oi', 'no-such-market', '--mock')
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('No market has the slug "no-such-market"')
    expect(r.stderr).toContain('hookpilot market search')
    const closed = await market('book', 'microstrategy-sells-any-bitcoin-by-may-31-2026', '--mock')
    expect(closed).toMatchObject({ code: 1, stderr: expect.stringContaining('No orderbook exists') })
    // The market exists, so the hint is about the book, not about the slug.
    expect(closed.stderr).toContain('Closed (resolved) markets have no order book')
    expect(closed.stderr).not.toContain('Check the slug')
  })

  it('has --help for the command and every subcommand', async () => {
    const top = await market('--help')
    expect(top.code).toBe(0)
    for (const sub of ['search', 'events', 'markets', 'book', 'history', 'trades', 'oi', 'watch']) {
      expect(top.stdout).toContain(`  ${sub} `)
      const r = await market(sub, '--help')
      expect(r.code).toBe(0)
      expect(r.stdout).toMatch(new RegExp(`^Usage: hookpilot market ${sub}`))
      expect(r.stdout).toContain('--json')
      expect(r.stdout).toMatch(/\n\nCommon options:/)
    }
    expect((await market()).code).toBe(2)
  })

  it('prints its usage to stderr with exit code 2 when given no command, to stdout with 0 when asked', async () => {
    const none = await market()
    expect(none).toMatchObject({ code: 2, stdout: '' })
    expect(none.stderr).toMatch(/^Usage: hookpilot market <command>/)
    for (const ask of ['--help', '-h', 'help']) {
      const r = await market(ask)
      expect(r).toMatchObject({ code: 0, stderr: '' })
      expect(r.stdout).toBe(none.stderr)
    }
  })

  it('watches a market live: one line per event when piped', async () => {
    const r = await market('watch', 'will-2-fed-rate-cuts-happen-in-2025', '--mock', '--count', '6')
    expect(r).toMatchObject({ code: 0, stderr: '' })
    const lines = r.stdout.trim().split('\n')
    expect(lines).toHaveLength(6)
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d book {3}Yes {2}bid 64% × [\d,]+ {2}ask 65% × [\d,]+$/)
    expect(lines[1]).toMatch(/ book {3}No /)
    expect(lines.slice(2).some((l) => / change (Yes|No) {2}(bid|ask) \d+% → [\d,]+$/.test(l))).toBe(true)
  })

  it('watches as JSON lines for scripts, and draws a view in place on a terminal', async () => {
    const r = await market('watch', 'will-2-fed-rate-cuts-happen-in-2025', '--mock', '--count', '5', '--json')
    const events = r.stdout.trim().split('\n').map((l) => JSON.parse(l) as { type: string; raw?: unknown; bids?: { price: number }[] })
    expect(events.map((e) => e.type).slice(0, 2)).toEqual(['book', 'book'])
    expect(events[0]?.bids?.[0]?.price).toBe(0.64)
    expect(events.every((e) => e.raw === undefined)).toBe(true)
    const tty = fakeIO(true)
    expect(await runMarket(['watch', 'will-2-fed-rate-cuts-happen-in-2025', '--outcome', 'No', '--mock', '--count', '4', '--depth', '3'], tty.io)).toBe(0)
    const out = tty.stdout()
    // Later frames move the cursor up over the previous one and clear it: redrawn in place.
    // eslint-disable-next-line no-control-regex -- the terminal's escape sequences are what is checked
    expect(out).toMatch(/\x1b\[\d+F\x1b\[J/)
    const frames = out.split('\x1b[J')
    const lastFrame = frames.at(-1) ?? ''
    expect(lastFrame).toContain('Will 2 Fed rate cuts happen in 2025? — No')
    expect(lastFrame).toMatch(/BIDS\s+SIZE\s+ASKS\s+SIZE\n\s+36%\s+[\d,]+\s+37%/)
    expect(lastFrame).toContain('LAST TRADES')
  })

  it('says so when the connection was lost and the books are rebuilt', async () => {
    const mock = await startMockMarketServer({ tickMs: 0 })
    try {
      const f = fakeIO()
      const env = { HOOKPILOT_GAMMA_URL: mock.gammaUrl, HOOKPILOT_CLOB_URL: mock.clobUrl, HOOKPILOT_WS_URL: mock.wsUrl }
      const running = runMarket(['watch', 'will-2-fed-rate-cuts-happen-in-2025', '--count', '5'], { ...f.io, env })
      await vi.waitFor(() => expect(f.stdout().split('\n')).toHaveLength(3))
      mock.drop()
      expect(await running).toBe(0)
      const lines = f.stdout().trim().split('\n')
      expect(lines[2]).toMatch(/reconnected after the connection closed: books rebuilt from fresh snapshots$/)
      expect(lines.slice(3).map((l) => l.split(/\s+/)[1])).toEqual(['book', 'book'])
    } finally {
      await mock.close()
    }
  })

  it('refuses a watch it cannot do before connecting', async () => {
    expect(await market('watch', 'odd-market-without-outcomes', '--mock')).toMatchObject({ code: 2, stderr: expect.stringContaining('has no outcome 0') })
    expect(await market('watch', 'presidential-election-winner-2028', '--mock', '--outcome', 'Dave', '--count', '1')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('(outcomes: Alice, Bob, Carol)'),
    })
    expect((await market('watch', 'x', '--count', '0')).stderr).toContain('--count must be a whole number')
  })

  it('shows a spinner on stderr only when it is a terminal', async () => {
    const tty = fakeIO(true)
    expect(await runMarket(['markets', '--mock', '--limit', '12'], tty.io)).toBe(0)
    expect(tty.stderr()).toMatch(/fetching markets… \d+/)
    expect(tty.stderr()).toContain('\x1b[2K')
    const pipe = fakeIO(false)
    await runMarket(['markets', '--mock', '--limit', '12'], pipe.io)
    expect(pipe.stderr()).toBe('')
  })
})
