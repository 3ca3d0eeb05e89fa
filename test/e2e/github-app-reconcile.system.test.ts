/**
 * `hookpilot reconcile` against the fake GitHub: a gateway stopped while GitHub "sent" 10 deliveries gets
 * exactly those 10 reviews once reconcile has GitHub redeliver them, and a second reconcile brings none.
 */
import { describe, expect, it } from 'vitest'
import { runMain, startCli, type RunningCli } from '../fixtures/cli.js'
import { githubAppConfigFile, REPO, REPO_ID, SECRET, useFakeGithubApp } from '../fixtures/github-app-gateway.js'

const AGENT = new URL('../fixtures/agents/upper.mjs', import.meta.url).pathname

const github = useFakeGithubApp({ webhookSecret: SECRET })

const event = (number: number) => ({ action: 'opened', number, installation: { id: 42 }, repository: { id: REPO_ID, full_name: REPO }, pull_request: { number, head: { sha: 'b'.repeat(40) } } })
const env = () => ({ GITHUB_APP_PRIVATE_KEY: github.app.privateKey, GH_TOKEN: '' })

const configFile = (more: string) => githubAppConfigFile({
  api: github.api, appId: github.app.appId, agent: AGENT, sections: 'metrics: { enabled: true }', appKeys: `    route: review\n${more}`, prompt: 'review {number}',
})

async function serve(config: string): Promise<RunningCli> {
  const running = startCli(['serve', '--config', config, '--port', '0'], { env: env() })
  const [, port] = await running.waitFor(/Listening on [^:]+:(\d+)/)
  github.app.hook.url = `http://127.0.0.1:${port}/webhooks/review`
  return running
}
async function stop(running: RunningCli): Promise<void> {
  running.child.kill('SIGTERM')
  await running.exited
}

describe('hookpilot reconcile', () => {
  it('a gateway down while 10 deliveries failed gets exactly those 10 reviews; running it again brings none', async () => {
    const config = await configFile('')
    const before = [1, 2]
    const missed = [11, 12, 13, 14, 15, 16, 17, 18, 19, 20]
    for (const n of [...before, ...missed]) github.api.setHead(REPO, n, 'b'.repeat(40))

    let gateway = await serve(config)
    for (const n of before) expect((await github.app.hook.send('pull_request', event(n))).statusCode).toBe(202)
    await expect.poll(() => before.every((n) => github.api.comments(REPO, n).length === 1)).toBe(true)
    await stop(gateway)
    for (const n of missed) expect((await github.app.hook.send('pull_request', event(n))).statusCode).toBe(0)

    gateway = await serve(config)
    try {
      const first = await runMain(['reconcile', '--config', config, '--since', '3h'], { env: env() })
      expect(first.code, first.output).toBe(0)
      expect(first.stdout).toBe('10 redelivered; 2 already held as jobs, 0 answered by the gateway, 0 refused by GitHub.\n')
      await github.app.hook.settled()
      await expect.poll(() => missed.filter((n) => github.api.comments(REPO, n).length === 1).length, { timeout: 30_000 }).toBe(10)

      const second = await runMain(['reconcile', '--config', config, '--since', '3h'], { env: env() })
      expect(second.stdout).toBe('0 redelivered; 12 already held as jobs, 0 answered by the gateway, 0 refused by GitHub.\n')
      await github.app.hook.settled()
    } finally {
      await stop(gateway)
    }
    // Exactly one review per pull request: nothing posted twice, nothing missing.
    for (const n of [...before, ...missed]) expect(github.api.comments(REPO, n).map((c) => c.body)).toEqual([`REVIEW ${n}`])
    const redeliveries = github.app.hook.attempts().filter((a) => a.redelivery)
    expect(redeliveries.map((a) => a.statusCode)).toEqual(Array(10).fill(202))
  }, 60_000) // its poll for the ten reviews may take 30 s, more than the default 20 s a test runs

  it('reconcile.on_start: a restarted gateway asks for what it missed by itself, and counts it in hookpilot_reconciled_deliveries_total', async () => {
    const config = await configFile('    reconcile: { on_start: true }')
    const missed = [31, 32, 33]
    for (const n of missed) github.api.setHead(REPO, n, 'c'.repeat(40))
    github.app.hook.url = 'http://127.0.0.1:9/webhooks/review' // the gateway is down
    for (const n of missed) expect((await github.app.hook.send('pull_request', event(n))).statusCode).toBe(0)
    const gateway = await serve(config)
    try {
      await gateway.waitFor(/reconcile pass done .*redelivered=3/)
      await github.app.hook.settled()
      await expect.poll(() => missed.filter((n) => github.api.comments(REPO, n).length === 1).length).toBe(3)
      const port = /127\.0\.0\.1:(\d+)/.exec(github.app.hook.url)?.[1]
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
      expect(metrics).toContain('hookpilot_reconciled_deliveries_total{result="redelivered"} 3')
    } finally {
      await stop(gateway)
    }
  })
})
