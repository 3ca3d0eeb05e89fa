/**
 * docs/reviews.md's "Try it locally", run as written (issue 38, item 8): `hookpilot dev github` (a child), the
 * shipped examples/reviews-local.yaml under `hookpilot serve` (a child, given the environment the fake wrote),
 * the real `gh` CLI posting through the fake, and `hookpilot dev github head` + `hookpilot send --action
 * synchronize --head` for each push. Three pushes give one comment, of the newest head; a fourth push edits that
 * comment in place; a delivery sent again with `--delivery` is answered duplicate. Needs gh (/usr/bin/gh).
 */
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises'
import { existsSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import type { PullSummary } from '../../src/dev/github/admin.js'
import { ROOT, runCli, startCli, type RunningCli } from '../fixtures/cli.js'

const PULL = 'octocat/hello-world#42'
const HEADS = ['1111111111111111111111111111111111111111', '2222222222222222222222222222222222222222', '3333333333333333333333333333333333333333']
const LATER = '4444444444444444444444444444444444444444'

const running: RunningCli[] = []
afterEach(async () => {
  for (const cli of running.splice(0)) {
    cli.child.kill('SIGTERM')
    await cli.exited
  }
})

/** `export NAME='value'` lines (the file `--write-env` wrote) as an environment. */
function parseExports(text: string): Record<string, string> {
  const env: Record<string, string> = {}
  for (const [, name = '', value = ''] of text.matchAll(/^export ([A-Za-z_]+)='((?:[^']|'\\'')*)'$/gm)) env[name] = value.replace(/'\\''/g, "'")
  return env
}

it('three pushes in a burst give one comment, of the newest head; a later push edits it in place; a resend is a duplicate', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-reviews-local-'))
  try {
    // The example as shipped, in a folder of its own (its state file is relative to it).
    const config = join(dir, 'reviews-local.yaml')
    await copyFile(join(ROOT, 'examples/reviews-local.yaml'), config)
    const envFile = join(dir, 'fake-github.env')
    // Tokens of the machine running the tests would win over the fake's; the docs' environment unsets them too.
    const noTokens = { GH_TOKEN: '', GITHUB_TOKEN: '' }

    // Terminal 1: the fake GitHub.
    const fake = startCli(['dev', 'github', '--port', '0', '--write-env', envFile], { cwd: dir, env: noTokens })
    running.push(fake)
    const [, url = ''] = await fake.waitFor(/Fake GitHub API at (http:\/\/127\.0\.0\.1:\d+)/)
    await fake.waitFor(/Requests, one a line/)
    const ghEnv = parseExports(await readFile(envFile, 'utf8'))
    expect(ghEnv).toMatchObject({ GH_HOST: 'github.localhost', HTTP_PROXY: url })

    // Terminal 2: the gateway, with that environment; its startup check of gh passes against the fake.
    const serve = startCli(['serve', '--config', config, '--port', '0'], { cwd: dir, env: { ...noTokens, ...ghEnv } })
    running.push(serve)
    await serve.waitFor(/Listening on 127\.0\.0\.1:\d+/)
    expect(serve.output()).not.toContain('gh auth status')

    // Terminal 3: three pushes, quickly (the route's debounce is 10 s); each moves the head, as a push does.
    const push = async (head: string, ...extra: string[]) => {
      expect(await runCli(['dev', 'github', 'head', PULL, head, '--url', url], { cwd: dir })).toMatchObject({ code: 0, stdout: `${PULL} head is now ${head}\n` })
      const sent = await runCli(['send', 'pr-review', '--config', config, '--action', 'synchronize', '--head', head, ...extra], { cwd: dir })
      expect(sent, sent.output).toMatchObject({ code: 0, stdout: expect.stringContaining('202 Accepted') })
      return /delivery ([^)]+)\)/.exec(sent.stdout)?.[1] ?? ''
    }
    const show = async () => {
      const shown = await runCli(['dev', 'github', 'show', PULL, '--url', url, '--json'], { cwd: dir })
      expect(shown.code, shown.output).toBe(0)
      return JSON.parse(shown.stdout) as PullSummary
    }
    for (const head of HEADS) await push(head)

    // One comment, created once, of the newest head, covering the three pushes.
    await fake.waitFor(/POST \/repos\/octocat\/hello-world\/issues\/42\/comments → 201 hookpilot-bot · created comment 1001/, 60_000)
    const first = await show()
    expect(first.head).toBe(HEADS[2])
    expect(first.comments).toHaveLength(1)
    expect(first.comments[0]).toMatchObject({ id: 1001, login: 'hookpilot-bot', edits: 0 })
    const body = first.comments[0]?.body ?? ''
    expect(body).toContain(`Reviewed head ${HEADS[2]} of octocat/hello-world#42`)
    expect(body).toMatch(/Review of 3333333 · .* UTC · covers 3 pushes/)
    for (const older of HEADS.slice(0, 2)) expect(body).not.toContain(older)

    // A later push: the same comment, edited in place.
    const later = await push(LATER)
    await fake.waitFor(/PATCH \/repos\/octocat\/hello-world\/issues\/comments\/1001 → 200 hookpilot-bot · edited comment 1001 on octocat\/hello-world#42 \(edit 1\)/, 60_000)
    const second = await show()
    expect(second.comments).toHaveLength(1)
    expect(second.comments[0]).toMatchObject({ id: 1001, edits: 1 })
    expect(second.comments[0]?.body).toContain(`Reviewed head ${LATER}`)

    // The same delivery again (GitHub's Redeliver): answered duplicate, nothing runs.
    const resent = await runCli(['send', 'pr-review', '--config', config, '--action', 'synchronize', '--head', LATER, '--delivery', later], { cwd: dir })
    expect(resent.stdout).toContain(`"status":"duplicate"`)
    // Every request the fake was sent is one line; only one comment was ever created.
    expect(fake.stdout().match(/ · created comment /g)).toHaveLength(1)

    // Ctrl-C stops the fake and removes the environment file it wrote.
    fake.child.kill('SIGINT')
    expect(await fake.exited).toBe(0)
    expect(existsSync(envFile)).toBe(false)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}, 120_000)
