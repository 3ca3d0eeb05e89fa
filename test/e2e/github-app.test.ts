/**
 * `hookpilot serve` and `hookpilot check` as a GitHub App, against the fake GitHub API: a signed pull-request
 * event is reviewed by an agent that holds only the event's installation token (none of the gateway's GitHub
 * credentials, nor the App's key), and the review is posted as the App; check names a wrong app id.
 */
import { createHash } from 'node:crypto'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { runMain, startCli } from '../fixtures/cli.js'
import { githubAppConfigFile, REPO, REPO_ID, SECRET, useFakeGithubApp } from '../fixtures/github-app-gateway.js'
import { githubHeaders } from '../fixtures/github.js'

const AGENT = new URL('../fixtures/agents/github-env.mjs', import.meta.url).pathname

const github = useFakeGithubApp()
beforeAll(() => github.api.setHead(REPO, 7, 'a'.repeat(40)))

const configFile = (appId: number) =>
  githubAppConfigFile({ api: github.api, appId, agent: AGENT, sections: 'state: { driver: memory }', prompt: 'Review #{number}' })

// The gateway's environment holds the operator's GitHub credentials: none may reach the agent.
const gatewayEnv = {
  PATH: process.env['PATH'],
  HOME: process.env['HOME'],
  GH_TOKEN: 'ghp_operatorpersonaltoken0123456789ab',
  GITHUB_TOKEN: 'ghp_operatorothertoken0123456789abcd',
  GH_ENTERPRISE_TOKEN: 'ghp_operatorenterprise0123456789abcd',
}

describe('a gateway acting as a GitHub App', () => {
  it("the agent's environment holds only the event's installation token (read-only, one repository); the review is posted as the App", async () => {
    const config = await configFile(github.app.appId)
    const serving = startCli(['serve', '--config', config, '--port', '0'], { env: { ...gatewayEnv, GITHUB_APP_PRIVATE_KEY: github.app.privateKey } })
    try {
      const [, port] = await serving.waitFor(/Listening on [^:]+:(\d+)/)
      const body = Buffer.from(JSON.stringify({ action: 'opened', number: 7, installation: { id: 42 }, repository: { id: REPO_ID, full_name: REPO }, pull_request: { number: 7, head: { sha: 'a'.repeat(40) } } }))
      const res = await fetch(`http://127.0.0.1:${port}/webhooks/review`, { method: 'POST', headers: githubHeaders('pull_request', body, SECRET, 'app-1'), body })
      expect(res.status).toBe(202)
      await expect.poll(() => github.api.comments(REPO, 7).length).toBe(1)
    } finally {
      serving.child.kill('SIGTERM')
      await serving.exited
    }
    const [comment] = github.api.comments(REPO, 7)
    expect(comment?.login).toBe('hookpilot-review[bot]')
    const seen = JSON.parse(comment?.body ?? '{}') as { names: string[]; prefix: string; sha256: string }
    // GH_TOKEN alone: not GITHUB_TOKEN, GH_ENTERPRISE_TOKEN, nor the variable holding the App's private key.
    expect(seen.names).toEqual(['GH_TOKEN'])
    expect(seen.prefix).toBe('ghs_')
    const agentMint = github.app.mints().find((m) => createHash('sha256').update(m.token).digest('hex') === seen.sha256)
    expect(agentMint).toMatchObject({ installationId: 42, repositoryIds: [REPO_ID], permissions: { contents: 'read', pull_requests: 'read' } })
    // The gateway's own posts used a token of their own, with the delivery's permissions.
    expect(github.app.mints().filter((m) => m !== agentMint)).toEqual([expect.objectContaining({ repositoryIds: [REPO_ID], permissions: { issues: 'write', pull_requests: 'read' } })])
  })

  it('hookpilot check verifies the id and key against GET /app, and says which is wrong', async () => {
    const good = await runMain(['check', '--config', await configFile(github.app.appId)], { env: { ...gatewayEnv, GITHUB_APP_PRIVATE_KEY: github.app.privateKey } })
    expect(good.code, good.output).toBe(0)
    const bad = await runMain(['check', '--config', await configFile(github.app.appId + 1)], { env: { ...gatewayEnv, GITHUB_APP_PRIVATE_KEY: github.app.privateKey } })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toContain(`platforms.github_app.app_id: GitHub refused the App's JWT (GET /app answered 404: Integration not found): app_id ${github.app.appId + 1} and the private key do not belong together`)
    expect(bad.output).not.toContain('PRIVATE KEY')
    // A key without an id is said once, at its path (github_comment then falls back to gh and says nothing more).
    const noId = (await readFile(await configFile(github.app.appId), 'utf8')).replace(/ {4}app_id: \d+\n/, '')
    const noIdFile = join(await mkdtemp(join(tmpdir(), 'hookpilot-app-')), 'config.yaml')
    await writeFile(noIdFile, noId)
    const missing = await runMain(['check', '--config', noIdFile], { env: { ...gatewayEnv, GITHUB_APP_PRIVATE_KEY: github.app.privateKey } })
    expect(missing.code).toBe(1)
    expect(missing.stderr.match(/platforms\.github_app\.app_id: the App's id is needed/g)).toHaveLength(1)
  })
})
