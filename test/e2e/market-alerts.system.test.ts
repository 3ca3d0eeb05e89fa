/**
 * docs/market-alerts.md's promises, with `hookpilot serve` watching a market of the SDK's mock services and
 * delivering to a fake Telegram: each condition met is one job and one message; a price wobbling on a level
 * alerts once per real crossing; `kill -9` and a restart neither repeat an alert nor lose a crossing.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, type RunningCli } from '../fixtures/cli.js'
import { marketWorld, SLUG, type MarketWorld, type MarketWorldOptions } from '../fixtures/market-watch.js'

const running: RunningCli[] = []
const worlds: MarketWorld[] = []
afterEach(async () => {
  for (const cli of running.splice(0)) cli.child.kill('SIGKILL')
  for (const world of worlds.splice(0)) await world.close()
})

async function world(when: readonly string[], options?: MarketWorldOptions): Promise<MarketWorld> {
  const w = await marketWorld(when, options)
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
  }, 60_000)

  it('kill -9 and restarts repeat no alert and lose no crossing: one missed while it was dead is found late', async () => {
    const w = await world(['{ price_crosses: [0.25] }'])
    const first = await serve(w)
    w.book(0.30)
    await expect.poll(() => kinds(w)).toEqual(['price_crosses late=false'])
    // Its job recorded done first: one killed between its message and its record is sent again (at least once).
    await expect.poll(() => jobs(w)).toEqual(['market:fed-cut price_crosses/0.25/up/1 done'])
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
  }, 60_000)

  it('a crossing that happened and reverted while the gateway was down is found late in the price history, once', async () => {
    const w = await world(['{ price_crosses: [0.1] }'])
    const first = await serve(w)
    // The dump's midpoint (near 0.035) is the baseline, below 0.1: up, then down again, both alerted live.
    w.book(0.2)
    await expect.poll(() => w.sent.length).toBe(1)
    w.book(0.03)
    await expect.poll(() => w.sent.length).toBe(2)
    // Stopped once both jobs are recorded done, not once their messages are sent: a job still running when the
    // shutdown's grace runs out is stopped and runs again at the restart (at least once), a third message.
    await expect.poll(() => jobs(w)).toEqual(['market:fed-cut price_crosses/0.1/down/2 done', 'market:fed-cut price_crosses/0.1/up/1 done'])
    first.child.kill('SIGTERM')
    await first.exited
    // The history has whole seconds: the excursion is published in a second after the last stored alert's.
    const stored = Date.now()
    await until(() => Math.floor(Date.now() / 1000) > Math.floor(stored / 1000))
    w.book(0.2) // nobody is subscribed: only the mock's price history keeps these
    w.book(0.03)
    // The book at the restart (the dump, below 0.1) agrees with the stored side: only the history shows the trip.
    await serve(w)
    await expect.poll(() => kinds(w)).toEqual(['price_crosses late=false', 'price_crosses late=false', 'price_crosses late=true', 'price_crosses late=true'])
    // A job is recorded done after its message is sent: waited for, not read at once.
    await expect.poll(() => jobs(w)).toEqual([
      'market:fed-cut price_crosses/0.1/down/2 done', 'market:fed-cut price_crosses/0.1/down/4 done',
      'market:fed-cut price_crosses/0.1/up/1 done', 'market:fed-cut price_crosses/0.1/up/3 done',
    ])
    const late = w.sent.slice(2).map((m) => m.text)
    expect(late.every((t) => t.includes('found late'))).toBe(true)
    expect(late.some((t) => t.includes('crossed 0.1 upward')) && late.some((t) => t.includes('crossed 0.1 downward'))).toBe(true)
  }, 60_000)

  it('after the stream reconnects, a trip over a level during the gap is found late in the price history, once each way', async () => {
    const w = await world(['{ price_crosses: [0.1] }'])
    const cli = await serve(w)
    // Up and down again, both live: the watch last looked at the book of 0.03.
    w.book(0.2)
    await expect.poll(() => w.sent.length).toBe(1)
    w.book(0.03)
    await expect.poll(() => w.sent.length).toBe(2)
    // The history has whole seconds: the trip is published in a second after the last book the watch saw.
    const seen = Date.now()
    await until(() => Math.floor(Date.now() / 1000) > Math.floor(seen / 1000))
    // Dropped, and in the same turn (before any reconnect) up and back down: only the history keeps the trip.
    const subscriptions = w.mock.received.length
    w.mock.drop()
    w.book(0.2)
    w.book(0.03)
    await cli.waitFor(/stream reconnected/)
    // The trip up and down, from the history, late; the new connection's dump (near 0.035) agrees with the side.
    await expect.poll(() => kinds(w)).toEqual(['price_crosses late=false', 'price_crosses late=false', 'price_crosses late=true', 'price_crosses late=true'])
    // Nothing more was found: the next alert is the next live crossing, numbered right after the trip's.
    await expect.poll(() => w.mock.received.length).toBeGreaterThan(subscriptions)
    w.book(0.2)
    await expect.poll(() => jobs(w)).toEqual([
      'market:fed-cut price_crosses/0.1/down/2 done', 'market:fed-cut price_crosses/0.1/down/4 done',
      'market:fed-cut price_crosses/0.1/up/1 done', 'market:fed-cut price_crosses/0.1/up/3 done', 'market:fed-cut price_crosses/0.1/up/5 done',
    ])
    expect(kinds(w)).toEqual(['price_crosses late=false', 'price_crosses late=false', 'price_crosses late=true', 'price_crosses late=true', 'price_crosses late=false'])
    const late = w.sent.slice(2, 4).map((m) => m.text)
    expect(late.every((t) => t.includes('found late'))).toBe(true)
    expect(late.some((t) => t.includes('crossed 0.1 upward')) && late.some((t) => t.includes('crossed 0.1 downward'))).toBe(true)
  }, 60_000)

  it('names the watch in hookpilot jobs, the job log lines and the metrics: the route is market:<watch>', async () => {
    const w = await world(['{ price_crosses: [0.25] }'], { metrics: true })
    const cli = await serve(w)
    const port = (await cli.waitFor(/Listening on 127\.0\.0\.1:(\d+)/))[1]
    w.book(0.30)
    await expect.poll(() => w.sent.length).toBe(1)
    await cli.waitFor(/agent run started.*market:fed-cut/)
    await expect.poll(async () => (await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text())).match(/^hookpilot_jobs_finished_total\{.*\}.*$/m)?.[0])
      .toBe('hookpilot_jobs_finished_total{route="market:fed-cut",outcome="done"} 1')
    const metrics = await fetch(`http://127.0.0.1:${port}/metrics`).then((r) => r.text())
    expect(metrics).toContain('hookpilot_agent_runs_total{route="market:fed-cut",outcome="ok"} 1')
    expect(metrics).toContain('hookpilot_agent_run_duration_seconds_count{route="market:fed-cut"} 1')
    const list = await runCli(['jobs', 'list', '--route', 'market:fed-cut', '--config', w.config], { cwd: w.dir })
    expect(list.stdout).toMatch(/market:fed-cut\s+price_crosses\s+price_crosses\/0\.25\/up\/1/)
    const id = /^(\S+)\s+done/m.exec(list.stdout)?.[1] ?? ''
    const show = await runCli(['jobs', 'show', id, '--config', w.config], { cwd: w.dir })
    expect(show.stdout).toMatch(/^watch:\s+fed-cut \(market watch\)$/m)
  }, 60_000)
})

/** Polls `ready` every 10 ms (a clock's second has no event to wait on). */
async function until(ready: () => boolean): Promise<void> {
  while (!ready()) await new Promise((r) => setTimeout(r, 10))
}

