/**
 * docs/market-alerts.md's promises, with `hookpilot serve` watching a market of the SDK's mock services and
 * delivering to a fake Telegram: each condition met is one job and one message; a price wobbling on a level
 * alerts once per real crossing; `kill -9` and a restart neither repeat an alert nor lose a crossing.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, type RunningCli } from '../fixtures/cli.js'
import { marketWorld, SLUG, type MarketWorld } from '../fixtures/market-watch.js'

const running: RunningCli[] = []
const worlds: MarketWorld[] = []
afterEach(async () => {
  for (const cli of running.splice(0)) cli.child.kill('SIGKILL')
  for (const world of worlds.splice(0)) await world.close()
})

async function world(when: readonly string[]): Promise<MarketWorld> {
  const w = await marketWorld(when)
  worlds.push(w)
  return w
}

async function serve(w: MarketWorld): Promise<RunningCli> {
  const cli = await w.serve()
  running.push(cli)
  return cli
}

/** The alert kinds of the messages sent, in order. */
const kinds = (w: MarketWorld) => w.sent.map((m) => /\[(\w+) late=(\w+)\]/.exec(m.text)?.slice(1).join(' late=') ?? m.text)

/** The jobs stored, as `delivery id state` lines. */
async function jobs(w: MarketWorld): Promise<string[]> {
  const out = await runCli(['jobs', 'list', '--json', '--config', w.config], { cwd: w.dir })
  const list = JSON.parse(out.stdout) as { route: string; deliveryId?: string; delivery_id?: string; state: string }[]
  return list.map((j) => `${j.route} ${j.deliveryId ?? j.delivery_id} ${j.state}`).sort()
}

describe('market alerts through hookpilot serve', () => {
  it('turns a move, each real crossing, a big trade and the resolution into one job and one message each', async () => {
    const w = await world(['{ midpoint_moves: 0.05, within_seconds: 600 }', '{ price_crosses: [0.25, 0.5] }', '{ trade_size_over: 5000 }', '{ resolved: true }'])
    const cli = await serve(w)
    w.book(0.30) // crosses 0.25, and a move of more than 0.05 from the dump's midpoint
    await expect.poll(() => w.sent.length).toBe(2)
    // A wobble on 0.5: one crossing up, then nothing until the midpoint leaves the band below.
    for (const mid of [0.515, 0.495, 0.505, 0.492, 0.508, 0.495]) w.book(mid)
    w.book(0.48)
    await expect.poll(() => w.sent.length).toBe(5)
    w.trade(100, 0.48, '0x' + '1'.repeat(64))
    w.trade(6000, 0.48, '0x' + '2'.repeat(64))
    w.trade(6000, 0.48, '0x' + '2'.repeat(64)) // the same trade again: a duplicate
    w.resolve()
    w.resolve()
    await expect.poll(() => w.sent.length).toBe(7)
    await cli.waitFor(/duplicate delivery.*trade_size_over/)
    // Jobs run side by side: the messages come in any order.
    expect(kinds(w).sort()).toEqual([
      'midpoint_moves late=false', 'midpoint_moves late=false',
      'price_crosses late=false', 'price_crosses late=false', 'price_crosses late=false',
      'resolved late=false', 'trade_size_over late=false',
    ])
    expect(w.sent.map((m) => m.text)).toContainEqual(expect.stringContaining('Will 1 Fed rate cut happen in 2025?: the price crossed 0.25 upward'))
    expect(w.sent.every((m) => m.chatId === '-100123')).toBe(true)
    cli.child.kill('SIGTERM')
    await cli.exited
    expect(await jobs(w)).toEqual([
      `market:fed-cut midpoint_moves/1 done`, `market:fed-cut midpoint_moves/2 done`,
      `market:fed-cut price_crosses/0.25/up/1 done`, `market:fed-cut price_crosses/0.5/down/2 done`, `market:fed-cut price_crosses/0.5/up/1 done`,
      `market:fed-cut resolved done`, `market:fed-cut trade_size_over/0x${'2'.repeat(64)} done`,
    ].sort())
    // Each alert's job links to the market's page (what the status page shows).
    const listed = JSON.parse((await runCli(['jobs', 'list', '--json', '--config', w.config], { cwd: w.dir })).stdout) as Array<{ link?: string }>
    expect(new Set(listed.map((j) => j.link))).toEqual(new Set([`https://polymarket.com/market/${SLUG}`]))
  })

  it('kill -9 and restarts repeat no alert and lose no crossing: one missed while it was dead is found late', async () => {
    const w = await world(['{ price_crosses: [0.25] }'])
    const first = await serve(w)
    w.book(0.30)
    await expect.poll(() => kinds(w)).toEqual(['price_crosses late=false'])
    // Stopped, then killed: the crossing back down reaches a socket nobody reads any more.
    first.child.kill('SIGSTOP')
    w.book(0.10)
    first.child.kill('SIGKILL')
    await first.exited
    // The restart rebuilds the level's side from the stored alert (above), so the channel's first book (the
    // mock's own, near 0.035) is the crossing it missed, said late; the crossing up is not alerted again.
    const second = await serve(w)
    await expect.poll(() => kinds(w)).toEqual(['price_crosses late=false', 'price_crosses late=true'])
    second.child.kill('SIGKILL')
    await second.exited
    // Nothing moved while it was down: the restart alerts nothing; the next real crossing is the next alert.
    await serve(w)
    w.book(0.30)
    await expect.poll(() => w.sent.length).toBe(3)
    expect(await jobs(w)).toEqual([
      'market:fed-cut price_crosses/0.25/down/2 done', 'market:fed-cut price_crosses/0.25/up/1 done', 'market:fed-cut price_crosses/0.25/up/3 done',
    ])
    expect(w.sent[1]?.text).toContain('found late')
  })
})
