/**
 * The deployment example, for real: Debian's nginx with examples/deploy/nginx.conf (only its ports changed) in
 * front of `hookpilot serve` on loopback. A signed webhook through nginx is accepted, and the gateway's log
 * shows the client's own address (from X-Forwarded-For, believed from nginx's address only), not nginx's.
 */
import { readFileSync } from 'node:fs'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ROOT, startCli, type RunningCli } from '../fixtures/cli.js'
import { githubHeaders, githubPayload } from '../fixtures/github.js'
import { freePort, startNginx, type TestNginx } from '../fixtures/nginx.js'

const SECRET = 'nginx-test-secret-0123456789'
let nginx: TestNginx | undefined
let serving: RunningCli | undefined
afterEach(() => {
  nginx?.stop()
  serving?.child.kill('SIGKILL')
  nginx = serving = undefined
})

describe('behind nginx (examples/deploy/nginx.conf)', () => {
  it('a signed webhook through nginx is accepted, and the log shows the original client address', async () => {
    const client = Object.values(networkInterfaces()).flat().find((i) => i?.family === 'IPv4' && !i.internal)?.address
    if (client === undefined) throw new Error('this test needs a non-loopback IPv4 address to come from (ip addr)')
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-nginx-'))
    const [gatewayPort, nginxPort] = [await freePort(), await freePort()]
    await writeFile(join(dir, 'config.yaml'), `state: { driver: memory }
log_format: json
platforms:
  webhook:
    extra:
      host: 127.0.0.1
      port: ${gatewayPort}
      trust_proxy: [127.0.0.1]
      routes:
        github-pr-review: { secret: ${SECRET}, events: [pull_request] }
`)
    // The example site as shipped, pointed at this test's ports.
    const site = readFileSync(join(ROOT, 'examples', 'deploy', 'nginx.conf'), 'utf8')
      .replace('server 127.0.0.1:8644;', `server 127.0.0.1:${gatewayPort};`)
      .replace('listen 80;', `listen ${nginxPort};`)

    serving = startCli(['serve', '--config', join(dir, 'config.yaml')], { cwd: dir })
    await serving.waitFor(/Listening on 127\.0\.0\.1/)
    nginx = await startNginx(site)
    const base = `http://${client}:${nginxPort}`
    await expect.poll(async () => (await fetch(`${base}/health`).catch(() => undefined))?.status, { timeout: 10_000, interval: 100 }).toBe(200)

    const body = githubPayload('pull_request', 'opened')
    const res = await fetch(`${base}/webhooks/github-pr-review`, { method: 'POST', headers: githubHeaders('pull_request', body, SECRET, 'via-nginx'), body })
    expect(res.status).toBe(202)
    expect(await res.json()).toMatchObject({ status: 'accepted', delivery_id: 'via-nginx' })
    const [line] = await serving.waitFor(/\{[^\n]*"msg":"accepted"[^\n]*\}/)
    expect(JSON.parse(line)).toMatchObject({ msg: 'accepted', route: 'github-pr-review', delivery: 'via-nginx', client })
    // nginx itself keeps /metrics and anything else off the public side.
    expect((await fetch(`${base}/metrics`)).status).toBe(404)
  }, 30_000)
})
