/**
 * Reconcile for repository and organisation webhooks, with a token (no GitHub App), against the fake GitHub and
 * the real Octokit: the hooks looked at are those whose id the route's jobs kept (`X-GitHub-Hook-ID`) plus those
 * config lists; a gateway down while both hooks failed gets exactly the missed deliveries, once; the token is
 * never printed, and a token GitHub refuses is said so, per hook.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runMain, startCli, type RunningCli } from '../fixtures/cli.js'
import { startFakeGithub, type FakeGithub } from '../../src/dev/github/server.js'
import { fakeHookDeliveries } from '../fixtures/fake-hook-deliveries.js'

const SECRET = 'repo-hook-secret-0123456789'
const AGENT = new URL('../fixtures/agents/upper.mjs', import.meta.url).pathname
const REPO_HOOK = 'repos/octo-org/hello-world/hooks/4242'
const ORG_HOOK = 'orgs/octo-org/hooks/77'

const repoHook = fakeHookDeliveries(SECRET, Date.now, REPO_HOOK)
const orgHook = fakeHookDeliveries(SECRET, Date.now, ORG_HOOK)
let api: FakeGithub
beforeAll(async () => {
  api = await startFakeGithub({ extensions: [repoHook, orgHook] })
})
afterAll(() => api.close())

const event = (number: number) => ({ action: 'opened', number, repository: { full_name: 'octo-org/hello-world' }, organization: { login: 'octo-org' } })

/** A gateway with one route, `ci`, fed by both hooks; reconcile reads them with `${GITHUB_TOKEN}`. */
async function configFile(reconcile: string): Promise<{ dir: string; config: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-hooks-reconcile-'))
  await writeFile(join(dir, 'config.yaml'), `agent:
  runner: command
  command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(AGENT)}]
metrics: { enabled: true }
platforms:
  github_app:
    api_url: ${api.url}
    route: ci
    reconcile: { token: "\${GITHUB_TOKEN}", hooks: [${ORG_HOOK}]${reconcile} }
  webhook:
    extra:
      routes:
        ci:
          secret: ${SECRET}
          events: [pull_request]
          prompt: "review {number}"
          deliver: log
`)
  return { dir, config: join(dir, 'config.yaml') }
}

async function serve(config: string, env: NodeJS.ProcessEnv = {}): Promise<RunningCli> {
  const running = startCli(['serve', '--config', config, '--port', '0'], { env: { GITHUB_TOKEN: api.token, ...env } })
  const [, port] = await running.waitFor(/Listening on [^:]+:(\d+)/)
  repoHook.url = orgHook.url = `http://127.0.0.1:${port}/webhooks/ci`
  return running
}
async function stop(running: RunningCli): Promise<void> {
  running.child.kill('SIGTERM')
  await running.exited
}
async function doneJobs(dir: string, config: string): Promise<Array<{ deliveryId: string; hook?: string }>> {
  const out = await runMain(['jobs', 'list', '--json', '--state', 'done', '--config', config], { cwd: dir })
  return JSON.parse(out.stdout) as Array<{ deliveryId: string; hook?: string }>
}

describe('hookpilot reconcile with a token (repository and organisation hooks)', () => {
  it('redelivers exactly what both hooks missed while the gateway was down, once; the token is never printed', async () => {
    const { dir, config } = await configFile('')
    let gateway = await serve(config)
    for (const n of [1, 2]) expect((await repoHook.send('pull_request', event(n))).statusCode).toBe(202)
    await expect.poll(async () => (await doneJobs(dir, config)).length, { timeout: 15_000 }).toBe(2)
    // The jobs kept the hook that delivered them: that is how reconcile learns of the repository's hook.
    expect((await doneJobs(dir, config)).map((j) => j.hook)).toEqual([REPO_HOOK, REPO_HOOK])
    await stop(gateway)
    const missed = [
      ...(await Promise.all([11, 12, 13].map((n) => repoHook.send('pull_request', event(n))))),
      ...(await Promise.all([21, 22].map((n) => orgHook.send('pull_request', event(n))))),
    ]
    expect(missed.map((a) => a.statusCode)).toEqual([0, 0, 0, 0, 0])

    gateway = await serve(config)
    try {
      const first = await runMain(['reconcile', '--config', config], { cwd: dir, env: { GITHUB_TOKEN: api.token } })
      expect(first.code, first.output).toBe(0)
      expect(first.stdout).toBe('5 redelivered; 2 already held as jobs, 0 answered by the gateway, 0 refused by GitHub.\n')
      expect(first.output).not.toContain(api.token)
      await Promise.all([repoHook.settled(), orgHook.settled()])
      await expect.poll(async () => (await doneJobs(dir, config)).length, { timeout: 20_000 }).toBe(7)
      const jobs = await doneJobs(dir, config)
      expect(new Set(jobs.map((j) => j.deliveryId)).size).toBe(7)
      expect(jobs.filter((j) => j.hook === ORG_HOOK)).toHaveLength(2)

      const second = await runMain(['reconcile', '--config', config], { cwd: dir, env: { GITHUB_TOKEN: api.token } })
      expect(second.stdout).toBe('0 redelivered; 7 already held as jobs, 0 answered by the gateway, 0 refused by GitHub.\n')

      // A token GitHub refuses: each hook is named as not listed, nothing is asked, and the token is not printed.
      const refused = await runMain(['reconcile', '--config', config], { cwd: dir, env: { GITHUB_TOKEN: 'ghp_not-a-valid-token-0123456789' } })
      expect(refused.code).toBe(1)
      expect(refused.stdout).toBe(`0 redelivered; 0 already held as jobs, 0 answered by the gateway, 0 refused by GitHub; could not list ${ORG_HOOK}, ${REPO_HOOK}.\n`)
      expect(refused.output).not.toContain('ghp_not-a-valid-token')
    } finally {
      await stop(gateway)
    }
    expect([...repoHook.attempts(), ...orgHook.attempts()].filter((a) => a.redelivery).map((a) => a.statusCode)).toEqual(Array(5).fill(202))
  }, 60_000)

  it('reconcile.on_start with a token: a restarted gateway asks both hooks for what it missed, counted in the metric', async () => {
    const { dir, config } = await configFile(', on_start: true')
    // The organisation's hook is listed in config: the route has no job of it yet, and it is looked at anyway.
    repoHook.url = orgHook.url = 'http://127.0.0.1:9/webhooks/ci' // the gateway is down
    expect((await orgHook.send('pull_request', event(31))).statusCode).toBe(0)
    const gateway = await serve(config)
    try {
      await gateway.waitFor(/reconcile pass done .*redelivered=1/)
      await orgHook.settled()
      await expect.poll(async () => (await doneJobs(dir, config)).length, { timeout: 15_000 }).toBe(1)
      const port = /127\.0\.0\.1:(\d+)/.exec(orgHook.url)?.[1]
      const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
      expect(metrics).toContain('hookpilot_reconciled_deliveries_total{result="redelivered"} 1')
      expect(gateway.output()).not.toContain(api.token)
    } finally {
      await stop(gateway)
    }
  }, 40_000)
})
