// `hookpilot market export` in process (--mock starts the real mock server): the summary, the progress display on a
// terminal and off it, and input checked before any request.
import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runMarket } from '../../src/cli/market/index.js'
import type { CliIO } from '../../src/cli/io.js'

async function market(tty: boolean, ...args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const stream = (sink: string[]) => ({ isTTY: tty, write: (s: string) => (sink.push(s), true) }) as unknown as CliIO['stdout']
  const io: CliIO = { stdout: stream(out), stderr: stream(err), env: {}, cwd: await mkdtemp(join(tmpdir(), 'hookpilot-cli-export-')) }
  const code = await runMarket(args, io)
  return { code, stdout: out.join(''), stderr: err.join(''), cwd: io.cwd }
}

const SLUG = 'microstrategy-sells-any-bitcoin-by-may-31-2026'

describe('hookpilot market export', () => {
  it('exports a history into --out, with plain progress lines off a terminal and a summary', async () => {
    const r = await market(false, 'export', 'history', SLUG, '--mock', '--since', '2026-05-01', '--until', '2026-06-01', '--fidelity', '1440', '--out', 'x')
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr.trim().split('\n')).toEqual(['export history: 0/3 steps, 0 rows', 'export history: 1/3 steps, 32 rows', 'export history: 2/3 steps, 62 rows', 'export history: 3/3 steps, 64 rows'])
    const file = join(r.cwd, 'x', `history-${SLUG}-1440m.jsonl`)
    expect(r.stdout).toBe(`Exported 64 rows to ${file}\nTime span: 2026-05-01 00:00 to 2026-06-01 00:00 UTC\nGaps: none\n`)
    expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(64)
  })

  it('draws a bar on a terminal and clears it; --json prints the summary', async () => {
    const r = await market(true, 'export', 'history', SLUG, '--mock', '--since', '2026-05-01', '--until', '2026-05-03', '--format', 'csv', '--json')
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain('\r[##############################] export history: 1/1 steps, 98 rows')
    expect(r.stderr.endsWith('\r\x1b[2K')).toBe(true)
    expect(JSON.parse(r.stdout)).toMatchObject({ rows: 98, format: 'csv', resumed: false, gapCount: 0, unreached: [] })
  })

  it("exports the busy market's whole trade feed on v2 by cursor, ending with a completeness line", async () => {
    const r = await market(false, 'export', 'trades', 'will-spain-win-the-2026-world-cup', '--mock')
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^Exported 36,000 rows to .*trades-will-spain-win-the-2026-world-cup\.jsonl\n/)
    expect(r.stdout).not.toContain('Not reached')
    expect(r.stdout.trimEnd().split('\n').at(-1)).toBe(
      'Complete: 36,000 rows from Data API v2 /v2/trades, read to the last page (72 page(s)); the service reports no total to check against; no holes',
    )
  })

  it("exports the busy market's trades on v1 when asked, saying what the offset cap kept out, with counts and as holes", async () => {
    const r = await market(false, 'export', 'trades', 'will-spain-win-the-2026-world-cup', '--mock', '--format', 'csv', '--api', 'v1')
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^Exported [\d,]+ rows to .*trades-will-spain-win-the-2026-world-cup\.csv\n/)
    expect(r.stdout).toMatch(/Not reached: side=BUY: the offset cap \(10,000\) stopped the walk of this side; 2 wallet\(s\) walked on their own found [\d,]+ older trade\(s\).*\(21,000 reached; older than .* UTC left out\)/)
    expect(r.stdout).toMatch(/Not reached: side=SELL: .*\(10,500 reached; older than/)
    expect(r.stdout).toContain('Not reached: side=BUY user=0x1111111111111111111111111111111111111111: this wallet alone reached the offset cap')
    // A wallet whose trades up to the cap were all in the export already says so, not "(0 reached)".
    expect(r.stdout).not.toContain('(0 reached')
    expect(r.stdout).toMatch(/user=0x\w+: this wallet alone reached the offset cap \(10,000\) \(nothing new: the trades it reached were in the export already; older than/)
    expect(r.stdout).toMatch(/\nIncomplete: [\d,]+ rows from Data API v1 \/trades \(v1 was asked for \(--api v1\)\), each side read to its last page or to the offset cap; the service reports no total to check against; 5 hole\(s\):\n {2}hole: side=BUY: trades older than /)
    expect(r.stdout.match(/^ {2}hole: /gm)).toHaveLength(5)
  })

  it('exports the catalog through the keyset list, with its filters', async () => {
    const r = await market(false, 'export', 'markets', '--mock', '--closed', '--json')
    expect(r.code, r.stderr).toBe(0)
    const summary = JSON.parse(r.stdout) as { rows: number; file: string }
    expect(summary.rows).toBe(1)
    const [row] = (await readFile(summary.file, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(row).toMatchObject({ slug: SLUG, closed: true, outcomes: '["Yes","No"]' })
    const events = await market(false, 'export', 'events', '--mock', '--order', 'volume', '--out', 'e')
    expect(events.stdout).toMatch(/^Exported 5 rows to .*events\.jsonl\nGaps: none\n$/)
  })

  it('checks its input before any request', async () => {
    expect(await market(false, 'export')).toMatchObject({ code: 2, stderr: expect.stringContaining('missing what to export') })
    expect(await market(false, 'export', 'prices', SLUG)).toMatchObject({ code: 2, stderr: expect.stringContaining('cannot export "prices"') })
    expect(await market(false, 'export', 'history', SLUG)).toMatchObject({ code: 2, stderr: expect.stringContaining('needs <slug|token> and --since') })
    expect(await market(false, 'export', 'history', SLUG, '--since', '2026-05-02', '--until', '2026-05-01')).toMatchObject({ code: 2 })
    expect(await market(false, 'export', 'history', SLUG, '--since', '2026-05-02', '--format', 'xml')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--format must be one of jsonl, csv'),
    })
    expect(await market(false, 'export', 'markets', 'x')).toMatchObject({ code: 2, stderr: expect.stringContaining('markets takes no <target>') })
    expect(await market(false, 'export', 'trades')).toMatchObject({ code: 2, stderr: expect.stringContaining('trades needs <slug|conditionId>') })
    expect(await market(false, 'export', 'trades', SLUG, '--api', 'v3')).toMatchObject({ code: 2, stderr: expect.stringContaining('--api must be one of auto, v2, v1') })
    const help = await market(false, 'export', '--help')
    expect(help.stdout).toContain('Resumable: a checkpoint')
  })
})
