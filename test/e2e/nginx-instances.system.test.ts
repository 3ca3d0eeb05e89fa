/**
 * The several-instances example, for real: nginx with examples/deploy/nginx-instances.conf (only its ports
 * changed) over two `hookpilot serve` processes on one Redis of this test's own. Webhooks spread over both; a
 * deploy (SIGTERM of one instance while its agents run) loses none: the draining instance answers 503 and
 * nginx sends the webhook to the other; every accepted delivery gets exactly one comment.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, startCli, type RunningCli } from '../fixtures/cli.js'
import { durableSetup } from '../fixtures/durable.js'
import { freePort, startNginx, type TestNginx } from '../fixtures/nginx.js'
import { startRedis, type TestRedis } from '../fixtures/redis.js'

let redis: TestRedis | undefined
let nginx: TestNginx | undefined
const instances: RunningCli[] = []
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  nginx?.stop()
  for (const cli of instances) cli.child.kill('SIGKILL')
  await redis?.stop()
})

describe('several instances behind nginx (examples/deploy/nginx-instances.conf)', () => {
  it('spreads webhooks over the instances, and a deploy of one loses none: nginx sends its 503s to the other', async () => {
    const world = await durableSetup({
      state: `  driver: redis\n  url: ${redis?.url}\n  prefix: nginx\n  lock_seconds: 2`,
      agentMs: 1_500,
      concurrency: 2,
      graceSeconds: 30,
    })
    const [a, b, front] = [await freePort(), await freePort(), await freePort()]
    for (const port of [a, b]) {
      const cli = startCli(['serve', '--config', world.config, '--port', String(port)], { cwd: world.dir, env: world.env })
      instances.push(cli)
      await cli.waitFor(/Listening on 127\.0\.0\.1/)
    }
    const site = readFileSync(join(ROOT, 'examples', 'deploy', 'nginx-instances.conf'), 'utf8')
      .replace('server 127.0.0.1:8644 ', `server 127.0.0.1:${a} `)
      .replace('server 127.0.0.1:8645 ', `server 127.0.0.1:${b} `)
      .replace('listen 80;', `listen ${front};`)
    nginx = await startNginx(site)
    await expect.poll(async () => (await fetch(`http://127.0.0.1:${front}/ready`).catch(() => undefined))?.status, { timeout: 10_000, interval: 100 }).toBe(200)

    const first = await Promise.all([1, 2, 3, 4, 5, 6].map((pr) => world.send(front, pr, `d-${pr}`)))
    expect(first.map((r) => r.status)).toEqual([202, 202, 202, 202, 202, 202])
    const [instanceA, instanceB] = instances as [RunningCli, RunningCli]
    const acceptedBy = (cli: RunningCli) => (cli.output().match(/accepted/g) ?? []).length
    // Round robin: both instances took webhooks. Their log lines come over pipes, which may be read after the 202s.
    await expect.poll(() => acceptedBy(instanceA), { timeout: 5_000 }).toBeGreaterThan(0)
    await expect.poll(() => acceptedBy(instanceB), { timeout: 5_000 }).toBeGreaterThan(0)
    expect(await world.send(front, 1, 'd-1')).toMatchObject({ status: 200, body: { status: 'duplicate' } })

    // A deploy: instance A drains (its agents are running, the grace period is long); new webhooks still land.
    await expect.poll(() => world.agentLog().filter((e) => e.what === 'start').length, { timeout: 10_000 }).toBeGreaterThan(0)
    instanceA.child.kill('SIGTERM')
    await instanceA.waitFor(/Shutting down|shutting down|grace/i, 10_000).catch(() => undefined)
    const during = await Promise.all([7, 8, 9, 10, 11, 12].map((pr) => world.send(front, pr, `d-${pr}`)))
    expect(during.map((r) => r.status)).toEqual([202, 202, 202, 202, 202, 202])
    expect(await instanceA.exited).toBe(0)

    // Every accepted delivery is answered exactly once, by whichever instance ran it.
    await expect.poll(() => world.posted().sort((x, y) => x - y), { timeout: 60_000, interval: 200 }).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])
  }, 120_000)
})
