/**
 * docs/market-alerts.md's "Several instances": two `hookpilot serve` on one Redis (a real `redis-server` of this
 * file's own) watching the same market each see every crossing the mock channel publishes, and each hands it to
 * the gateway under the same de-dup key: one is accepted, the other is a duplicate, so each crossing is one job
 * and one message. A watch added with `hookpilot subscribe --market` lives in Redis, for both instances.
 */
import { randomUUID } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli, type RunningCli } from '../fixtures/cli.js'
import { redisStateYaml } from '../fixtures/durable.js'
import { marketWorld, SLUG, type MarketWorld } from '../fixtures/market-watch.js'
import { useRedis } from '../fixtures/redis.js'

const redis = useRedis()

const running: RunningCli[] = []
const worlds: MarketWorld[] = []
afterEach(async () => {
  for (const cli of running.splice(0)) cli.child.kill('SIGKILL')
  for (const world of worlds.splice(0)) await world.close()
})

/** How many lines of `output` say `what` about `delivery` of `route`. */
const said = (output: string, what: string, delivery: string, route = 'market:fed-cut') =>
  output.split('\n').filter((line) => line.includes(what) && line.includes(route) && line.includes(delivery)).length

describe('market watches on several instances sharing Redis', () => {
  it('give one job and one message per crossing, whichever instance sees it first', async () => {
    const w = await marketWorld(['{ price_crosses: [0.25, 0.5] }'], { state: redisStateYaml(redis.url, `market-${randomUUID().slice(0, 8)}`) })
    worlds.push(w)
    const a = await w.serve()
    running.push(a)
    const b = await w.serve()
    running.push(b)
    // Up through both levels, back down through both: four crossings, each seen by both instances.
    const crossings = ['price_crosses/0.25/up/1', 'price_crosses/0.5/up/1', 'price_crosses/0.5/down/2', 'price_crosses/0.25/down/2']
    for (const mid of [0.30, 0.55, 0.45, 0.20]) w.book(mid)
    for (const id of crossings) {
      // Each instance handed each crossing to the gateway: one was stored, the other found it stored.
      await expect.poll(() => said(a.output() + b.output(), 'accepted', id) + said(a.output() + b.output(), 'duplicate delivery', id), { timeout: 15_000 }).toBe(2)
      expect(said(a.output() + b.output(), 'accepted', id)).toBe(1)
    }
    await expect.poll(async () => {
      const out = await runCli(['jobs', 'list', '--json', '--config', w.config], { cwd: w.dir })
      return (JSON.parse(out.stdout) as { deliveryId: string; state: string }[]).map((j) => `${j.deliveryId} ${j.state}`).sort()
    }, { timeout: 15_000 }).toEqual(crossings.map((id) => `${id} done`).sort())
    expect(w.sent.map((m) => /crossed (\S+) (\w+)/.exec(m.text)?.slice(1).join(' ')).sort()).toEqual(['0.25 downward', '0.25 upward', '0.5 downward', '0.5 upward'])
  }, 60_000)

  it('start a watch added with hookpilot subscribe --market on every instance, and it still alerts once', async () => {
    const w = await marketWorld(['{ resolved: true }'], { state: redisStateYaml(redis.url, `market-${randomUUID().slice(0, 8)}`) })
    worlds.push(w)
    const a = await w.serve()
    running.push(a)
    const b = await w.serve()
    running.push(b)
    const subscribed = w.mock.received.length
    const added = await runCli(['subscribe', '--market', SLUG, '--name', 'shared', '--when', 'price_crosses=0.25', '--deliver', 'telegram', '--deliver-chat-id', '-100777', '--config', w.config], { cwd: w.dir })
    expect(added.stdout).toContain('in Redis')
    await Promise.all([a.waitFor(/\[market\] watching.*shared/), b.waitFor(/\[market\] watching.*shared/)])
    // Both instances' new watches subscribed on the channel.
    await expect.poll(() => w.mock.received.length - subscribed).toBe(2)
    w.book(0.30)
    await expect.poll(() => w.sent.filter((m) => m.chatId === '-100777').length).toBe(1)
    const both = () => a.output() + b.output()
    await expect.poll(() => said(both(), 'accepted', 'price_crosses/0.25/up/1', 'market:shared') + said(both(), 'duplicate delivery', 'price_crosses/0.25/up/1', 'market:shared')).toBe(2)
    const out = await runCli(['jobs', 'list', '--json', '--route', 'market:shared', '--config', w.config], { cwd: w.dir })
    expect((JSON.parse(out.stdout) as { deliveryId: string }[]).map((j) => j.deliveryId)).toEqual(['price_crosses/0.25/up/1'])
  }, 60_000)
})
