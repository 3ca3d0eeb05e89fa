/**
 * docs/market-alerts.md's "Adding a watch without a restart": `hookpilot subscribe --market` writes a watch
 * beside the webhook subscriptions, a running `hookpilot serve` starts it (its alerts are jobs of
 * `market:<name>`), `hookpilot list` shows it, `hookpilot remove` stops it; a bad `--when` says what to write.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runMain, type RunningCli } from '../fixtures/cli.js'
import { marketWorld, SLUG, type MarketWorld } from '../fixtures/market-watch.js'

const running: RunningCli[] = []
const worlds: MarketWorld[] = []
afterEach(async () => {
  for (const cli of running.splice(0)) cli.child.kill('SIGKILL')
  for (const world of worlds.splice(0)) await world.close()
})

async function world(): Promise<MarketWorld> {
  const w = await marketWorld(['{ price_crosses: [0.25] }'])
  worlds.push(w)
  return w
}

const cli = (w: MarketWorld, ...args: string[]) => runMain([...args, '--config', w.config], { cwd: w.dir })
const toChat = (w: MarketWorld, chat: string) => w.sent.filter((m) => m.chatId === chat).map((m) => m.text)

describe('hookpilot subscribe --market', () => {
  it('adds a watch a running gateway starts without a restart, lists it, and stops it on remove', async () => {
    const w = await world()
    const serve = await w.serve()
    running.push(serve)
    const subscribed = w.mock.received.length
    const added = await cli(w, 'subscribe', '--market', SLUG, '--name', 'live', '--when', 'price_crosses=0.25', '--when', 'trade_size_over=5000',
      '--deliver', 'telegram', '--deliver-chat-id', '-100999', '--prompt', 'LIVE {alert.summary}')
    expect(added.code).toBe(0)
    expect(added.stdout).toContain('Created market watch "live"')
    expect(added.stdout).toContain('When:     price_crosses=0.25 trade_size_over=5000')
    const file = JSON.parse(await readFile(join(w.dir, '.subscriptions.json'), 'utf8')) as { watches: Record<string, unknown> }
    expect(file.watches['live']).toMatchObject({ market: SLUG, when: [{ price_crosses: [0.25] }, { trade_size_over: 5000 }], deliver: 'telegram', deliver_extra: { chat_id: '-100999' } })

    await serve.waitFor(/subscribed watch started.*live/)
    await serve.waitFor(/\[market\] watching.*live/)
    await expect.poll(() => w.mock.received.length).toBe(subscribed + 1) // its stream subscribed on the channel
    w.book(0.30)
    // The config's watch and the subscribed one each alert the crossing, to their own chats.
    await expect.poll(() => toChat(w, '-100999')).toEqual([expect.stringMatching(/^LIVE the price crossed 0\.25 upward/)])
    await expect.poll(() => toChat(w, '-100123').length).toBe(1)

    const listed = JSON.parse((await cli(w, 'list', '--json')).stdout) as { name: string; source: string; events: string[]; skipped?: string }[]
    expect(listed.filter((r) => r.name.startsWith('market:'))).toEqual([
      expect.objectContaining({ name: 'market:fed-cut', source: 'static', events: ['price_crosses=0.25'] }),
      expect.objectContaining({ name: 'market:live', source: 'dynamic', events: ['price_crosses=0.25 trade_size_over=5000'] }),
    ])
    expect(listed.find((r) => r.name === 'market:live')?.skipped).toBeUndefined()

    // Subscribed again with another chat: the watch restarts with it, its state rebuilt from its stored alert.
    const again = await cli(w, 'subscribe', 'live', '--market', SLUG, '--when', 'price_crosses=0.25', '--deliver', 'telegram', '--deliver-chat-id', '-100888', '--prompt', 'AGAIN {alert.summary}')
    expect(again.stdout).toContain('Updated market watch "live"')
    await expect.poll(() => (serve.output().match(/subscribed watch started.*live/g) ?? []).length).toBe(2)
    await expect.poll(() => w.mock.received.length).toBe(subscribed + 2)
    w.book(0.10)
    await expect.poll(() => toChat(w, '-100888')).toEqual([expect.stringMatching(/^AGAIN the price crossed 0\.25 downward/)])
    await expect.poll(() => toChat(w, '-100123').length).toBe(2)

    // A hand edit gone wrong is skipped with its reason; a target the gateway lacks, with what to enable.
    const path = join(w.dir, '.subscriptions.json')
    const edited = JSON.parse(await readFile(path, 'utf8')) as { watches: Record<string, unknown> }
    edited.watches['broken'] = { market: SLUG, when: [] }
    edited.watches['to-slack'] = { market: SLUG, when: [{ resolved: true }], deliver: 'slack' }
    await writeFile(path, JSON.stringify(edited), { mode: 0o600 })
    await serve.waitFor(/subscribed watch "broken" skipped: when: at least one condition/)
    await serve.waitFor(/subscribed watch "to-slack" skipped: .*platforms\.slack/)

    const removed = await cli(w, 'remove', 'market:live')
    expect(removed.code).toBe(0)
    await serve.waitFor(/watch removed.*live/)
    // Up again: only the config's watch is left to see it.
    w.book(0.30)
    await expect.poll(() => toChat(w, '-100123').length).toBe(3)
    expect(toChat(w, '-100999')).toHaveLength(1)
    expect(toChat(w, '-100888')).toHaveLength(1)
    const jobs = JSON.parse((await cli(w, 'jobs', 'list', '--json')).stdout) as { route: string; deliveryId: string }[]
    expect(jobs.map((j) => `${j.route} ${j.deliveryId}`).sort()).toEqual([
      'market:fed-cut price_crosses/0.25/down/2', 'market:fed-cut price_crosses/0.25/up/1', 'market:fed-cut price_crosses/0.25/up/3',
      'market:live price_crosses/0.25/down/2', 'market:live price_crosses/0.25/up/1',
    ])
    const after = JSON.parse((await cli(w, 'list', '--json')).stdout) as { name: string; skipped?: string }[]
    expect(after.find((r) => r.name === 'market:live')).toBeUndefined()
    expect(after.find((r) => r.name === 'market:to-slack')?.skipped).toMatch(/platforms\.slack/)
    expect(after.find((r) => r.name === 'market:broken')?.skipped).toBe('when: at least one condition')
  }, 60_000)

  it('refuses a bad --when with what to write instead, and a name the config already watches', async () => {
    const w = await world()
    const big = await cli(w, 'subscribe', '--market', SLUG, '--when', 'midpoint_moves=5/600')
    expect(big.code).toBe(2)
    expect(big.stderr).toContain('--when "midpoint_moves=5/600": midpoint_moves: a price below 1 (a price is a probability between 0 and 1: 5 points is 0.05)')
    const typo = await cli(w, 'subscribe', '--market', SLUG, '--when', 'price_cross=0.5')
    expect(typo.stderr).toContain('no condition "price_cross" (did you mean price_crosses?)')
    const windowless = await cli(w, 'subscribe', '--market', SLUG, '--when', 'midpoint_moves=0.05')
    expect(windowless.stderr).toContain('midpoint_moves=0.05/600 is a move of 0.05 (5 points) within 600 seconds')
    const none = await cli(w, 'subscribe', '--market', SLUG)
    expect(none.stderr).toContain('--market needs at least one --when')
    const clash = await cli(w, 'subscribe', '--market', SLUG, '--name', 'fed-cut', '--when', 'resolved')
    expect(clash.code).toBe(1)
    expect(clash.stderr).toContain('"fed-cut" is already a watch of')
    const slack = await cli(w, 'subscribe', '--market', SLUG, '--when', 'resolved', '--deliver', 'slack')
    expect(slack.code).toBe(0)
    expect(slack.stdout).toContain(`Created market watch "${SLUG}"`) // named after its slug by default
    expect(slack.stderr).toMatch(/Warning: .*platforms\.slack.* A running gateway skips this watch/)
    await cli(w, 'remove', SLUG)
    const configWatch = await cli(w, 'remove', 'fed-cut')
    expect(configWatch.code).toBe(1)
    expect(configWatch.stderr).toContain('"fed-cut" is a market watch of')
    const webhookNamedLikeWatch = await cli(w, 'subscribe', 'fed-cut')
    expect(webhookNamedLikeWatch.code).toBe(1)
    expect(webhookNamedLikeWatch.stderr).toContain('"fed-cut" is the name of a market watch')
    // Names already in the store clash too, checked in the change that would write the new entry.
    expect((await cli(w, 'subscribe', '--market', SLUG, '--name', 'stored-watch', '--when', 'resolved')).code).toBe(0)
    const webhookNamedLikeStoredWatch = await cli(w, 'subscribe', 'stored-watch')
    expect(webhookNamedLikeStoredWatch.code).toBe(1)
    expect(webhookNamedLikeStoredWatch.stderr).toContain('"stored-watch" is the name of a market watch')
    expect((await cli(w, 'subscribe', 'stored-hook')).code).toBe(0)
    const watchNamedLikeHook = await cli(w, 'subscribe', '--market', SLUG, '--name', 'stored-hook', '--when', 'resolved')
    expect(watchNamedLikeHook.code).toBe(1)
    expect(watchNamedLikeHook.stderr).toContain('"stored-hook" is already a webhook subscription in')
    expect((await cli(w, 'remove', 'stored-watch')).code).toBe(0)
    expect((await cli(w, 'remove', 'stored-hook')).code).toBe(0)
    const webhookFlag = await cli(w, 'subscribe', '--market', SLUG, '--when', 'resolved', '--secret', 'x')
    expect(webhookFlag.stderr).toContain('--secret is for webhook routes, not for --market')
    expect(JSON.parse(await readFile(join(w.dir, '.subscriptions.json'), 'utf8'))).toEqual({ version: 1, subscriptions: {}, watches: {} })
  }, 60_000)
})
