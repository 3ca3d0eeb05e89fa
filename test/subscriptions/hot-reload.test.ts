/**
 * A running gateway (a real node:http server on port 0) follows the subscriptions file without a restart:
 * subscribe and remove run as child processes, requests go over HTTP, and nothing sleeps longer than a poll.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { writeSubscriptions } from '../../src/core/routes/subscriptions/index.js'
import { builtCli, cliTestSetup, hookpilot, liveGateway, postSigned, project, STATIC_SECRET, type LiveGateway } from './helpers.js'

const POLL = { timeout: 5_000, interval: 50 }

const cleanup = cliTestSetup()

async function setup(agent?: Parameters<typeof liveGateway>[2]) {
  const p = await project()
  cleanup(p.cleanup)
  const live = await liveGateway(p.config, p.dir, agent)
  cleanup(() => live.gateway.close())
  return { ...p, live }
}

async function secretOf(file: string, name: string): Promise<string> {
  return JSON.parse(await readFile(file, 'utf8')).subscriptions[name].secret
}

async function write(file: string, subscriptions: Record<string, unknown>): Promise<void> {
  await writeFile(file, JSON.stringify({ version: 1, subscriptions }))
}

function warnings(live: LiveGateway): string {
  return live.log.lines.filter((l) => l.level === 'warn' || l.level === 'error').map((l) => l.message).join('\n')
}

describe('hot reload', () => {
  it('subscribe makes the route answer 202; remove makes it 404; the gateway never restarts', async () => {
    const { dir, file, live } = await setup()
    expect(await postSigned(live.url, 'fresh', 'whatever')).toBe(404)
    const sub = await hookpilot(['subscribe', 'fresh', '--events', 'pull_request'], dir)
    expect(sub.code, sub.stderr).toBe(0)
    const secret = await secretOf(file, 'fresh')
    await expect.poll(() => postSigned(live.url, 'fresh', secret), POLL).toBe(202)
    expect(await postSigned(live.url, 'fresh', 'wrong-secret')).toBe(401)
    await expect.poll(() => live.answers.map((a) => a.route), POLL).toContain('fresh')

    expect((await hookpilot(['remove', 'fresh'], dir)).code).toBe(0)
    await expect.poll(() => postSigned(live.url, 'fresh', secret), POLL).toBe(404)
    expect(await postSigned(live.url, 'static-pr', STATIC_SECRET)).toBe(202)
  })

  it('reads the file once per change: not per request, not per poll', async () => {
    const { file, live } = await setup()
    const loads = () => live.log.lines.filter((l) => l.message.startsWith('subscriptions loaded')).length
    const initial = loads()
    // Atomic, as the commands write: one rename, so exactly one change to notice.
    await writeSubscriptions(file, { version: 1, subscriptions: { steady: { secret: 'steady-secret-1234' } } })
    await expect.poll(() => postSigned(live.url, 'steady', 'steady-secret-1234'), POLL).toBe(202)
    // Requests spread over more than one stat poll (1 s): the unchanged file is not read again.
    for (let i = 0; i < 6; i++) {
      expect(await postSigned(live.url, 'steady', 'steady-secret-1234')).toBe(202)
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
    expect(loads()).toBe(initial + 1)
  })

  it('skips an invalid entry with a warning naming it; the others keep working', async () => {
    const { file, live } = await setup()
    await write(file, {
      good: { secret: 'good-secret-12345', events: ['pull_request'] },
      nosecret: { events: ['pull_request'] },
      badtarget: { secret: 'another-secret-1', deliver: 'carrier-pigeon' },
      open: { secret: 'INSECURE_NO_AUTH' },
      'Bad Name': { secret: 'x-secret-1234567' },
      typo: { secret: 'typo-secret-12345', evnts: ['push'] },
    })
    await expect.poll(() => postSigned(live.url, 'good', 'good-secret-12345'), POLL).toBe(202)
    const text = warnings(live)
    expect(text).toMatch(/subscription "nosecret" skipped: .*no secret/)
    expect(text).toMatch(/subscription "badtarget" skipped: .*carrier-pigeon/)
    expect(text).toMatch(/subscription "open" skipped: .*INSECURE_NO_AUTH/) // the project binds 0.0.0.0
    expect(text).toMatch(/subscription "Bad Name" skipped/)
    expect(text).toMatch(/subscription "typo" skipped: evnts: unknown key/)
    expect(text).not.toContain('typo-secret-12345')
    for (const name of ['nosecret', 'badtarget', 'open', 'typo']) expect(await postSigned(live.url, name, 'another-secret-1')).toBe(404)
  })

  it('a static route wins a name clash', async () => {
    const { file, live } = await setup()
    await write(file, { 'static-pr': { secret: 'dynamic-secret-123' }, other: { secret: 'other-secret-1234' } })
    await expect.poll(() => postSigned(live.url, 'other', 'other-secret-1234'), POLL).toBe(202)
    expect(await postSigned(live.url, 'static-pr', 'dynamic-secret-123')).toBe(401)
    expect(await postSigned(live.url, 'static-pr', STATIC_SECRET)).toBe(202)
    expect(warnings(live)).toMatch(/subscription "static-pr" skipped: a static route/)
  })

  it('a corrupt file keeps the last good set and says why; fixing it applies the new set', async () => {
    const { file, live } = await setup()
    await write(file, { kept: { secret: 'kept-secret-12345' } })
    await expect.poll(() => postSigned(live.url, 'kept', 'kept-secret-12345'), POLL).toBe(202)
    await writeFile(file, '{"version": 1, "subscriptions": {"kept": ')
    await expect.poll(() => warnings(live), POLL).toMatch(/subscriptions are invalid, keeping the 1 subscription\(s\) loaded before: not valid JSON/)
    expect(await postSigned(live.url, 'kept', 'kept-secret-12345')).toBe(202)
    await write(file, { next: { secret: 'next-secret-12345' } })
    await expect.poll(() => postSigned(live.url, 'next', 'next-secret-12345'), POLL).toBe(202)
    expect(await postSigned(live.url, 'kept', 'kept-secret-12345')).toBe(404)
  })

  it('a deleted file clears the dynamic routes', async () => {
    const { file, live } = await setup()
    await write(file, { gone: { secret: 'gone-secret-12345' } })
    await expect.poll(() => postSigned(live.url, 'gone', 'gone-secret-12345'), POLL).toBe(202)
    await rm(file)
    await expect.poll(() => postSigned(live.url, 'gone', 'gone-secret-12345'), POLL).toBe(404)
    expect(await postSigned(live.url, 'static-pr', STATIC_SECRET)).toBe(202)
  })

  it('a route removed while its agent runs lets that run finish and deliver', async () => {
    let release!: () => void
    const held = new Promise<void>((resolve) => (release = resolve))
    let started!: () => void
    const running = new Promise<void>((resolve) => (started = resolve))
    const { dir, file, live } = await setup(async (input) => {
      started()
      await held
      return { ok: true, text: `done ${input.route}` }
    })
    await write(file, { slow: { secret: 'slow-secret-12345' } })
    await expect.poll(() => postSigned(live.url, 'slow', 'slow-secret-12345'), POLL).toBe(202)
    await running
    expect((await hookpilot(['remove', 'slow'], dir)).code).toBe(0)
    await expect.poll(() => postSigned(live.url, 'slow', 'slow-secret-12345'), POLL).toBe(404)
    release()
    await expect.poll(() => live.answers.map((a) => a.text), POLL).toContain('done slow')
  })
})

it('the whole flow with "hookpilot serve" as a child: subscribe, test answers 202, remove, the route answers 404', async () => {
  const p = await project()
  cleanup(p.cleanup)
  const child = spawn(process.execPath, [await builtCli(), 'serve', '--config', p.config, '--host', '127.0.0.1', '--port', '0'], { cwd: p.dir })
  cleanup(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM')
      await once(child, 'exit')
    }
  })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  await expect.poll(() => out, POLL).toMatch(/Listening on 127\.0\.0\.1:\d+/)
  const url = `http://127.0.0.1:${/Listening on 127\.0\.0\.1:(\d+)/.exec(out)?.[1]}`

  expect((await hookpilot(['subscribe', 'live', '--events', 'pull_request'], p.dir)).code).toBe(0)
  await expect.poll(async () => (await hookpilot(['test', 'live', '--url', url], p.dir)).stdout, { ...POLL, timeout: 10_000 }).toMatch(/^202 /m)
  expect((await hookpilot(['remove', 'live'], p.dir)).code).toBe(0)
  await expect.poll(async () => (await hookpilot(['send', 'static-pr', '--url', url], p.dir)).stdout, POLL).toMatch(/^202 /m)
  await expect.poll(() => postSigned(url, 'live', 'any'), POLL).toBe(404)
  expect(out).toMatch(/subscriptions loaded: live/)
  expect(out).not.toMatch(/[A-Za-z0-9_-]{43}/) // the generated secret never reaches the log
}, 60_000)
