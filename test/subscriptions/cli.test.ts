/**
 * Each subscription command as a real child process (`node <built CLI> ...`) against a temporary folder with
 * its own config.yaml: what it prints, what it writes, and its exit code on bad input.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { cliTestSetup, hookpilot, liveGateway, modeOf, project, STATIC_SECRET, type LiveGateway } from './helpers.js'
import { freePort } from '../fixtures/ports.js'

const cleanup = cliTestSetup()
async function tempProject(extra?: Record<string, unknown>) {
  const p = await project(extra)
  cleanup(p.cleanup)
  return p
}
async function running(configPath: string, dir: string): Promise<LiveGateway> {
  const live = await liveGateway(configPath, dir)
  cleanup(() => live.gateway.close())
  return live
}

describe('hookpilot subscribe', () => {
  it('writes the entry with a generated 32-byte URL-safe secret, mode 0600, and prints URL, secret and GitHub setup', async () => {
    const { dir, file } = await tempProject()
    const res = await hookpilot(['subscribe', 'pr-bot', '--events', 'pull_request, push', '--prompt', 'PR #{number}', '--description', 'reviews'], dir)
    expect(res.code, res.stderr).toBe(0)
    const saved = JSON.parse(await readFile(file, 'utf8'))
    const entry = saved.subscriptions['pr-bot']
    expect(saved.version).toBe(1)
    expect(entry).toMatchObject({ events: ['pull_request', 'push'], prompt: 'PR #{number}', deliver: 'log', description: 'reviews' })
    expect(entry.secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(Buffer.from(entry.secret, 'base64url')).toHaveLength(32)
    expect(modeOf(file)).toBe(0o600)
    expect(res.stdout).toContain('http://localhost:8644/webhooks/pr-bot')
    expect(res.stdout).toContain(entry.secret)
    expect(res.stdout).toContain('application/json')
    expect(res.stdout).toContain('pull_request, push')
  })

  it('takes --secret, --skills, --deliver and --deliver-chat-id; the configured host is shown as is', async () => {
    const { dir, file } = await tempProject({ host: '127.0.0.1', port: 9000 })
    const res = await hookpilot(['subscribe', 'chat', '--secret', 'given-secret-123', '--skills', 'review,style', '--deliver', 'log', '--deliver-chat-id', '-1001234'], dir)
    expect(res.code, res.stderr).toBe(0)
    const entry = JSON.parse(await readFile(file, 'utf8')).subscriptions.chat
    expect(entry).toMatchObject({ secret: 'given-secret-123', skills: ['review', 'style'], deliver: 'log', deliver_extra: { chat_id: '-1001234' } })
    expect(res.stdout).toContain('http://127.0.0.1:9000/webhooks/chat')
  })

  it('writes where platforms.webhook.extra.subscriptions_file says, relative to the config folder', async () => {
    const { dir } = await tempProject({ subscriptions_file: 'state/subs.json' })
    expect((await hookpilot(['subscribe', 'elsewhere'], dir)).code).toBe(0)
    const saved = JSON.parse(await readFile(join(dir, 'state', 'subs.json'), 'utf8'))
    expect(Object.keys(saved.subscriptions)).toEqual(['elsewhere'])
    expect(modeOf(join(dir, 'state', 'subs.json'))).toBe(0o600)
    expect((await hookpilot(['list'], dir)).stdout).toContain(`Subscriptions: ${join(dir, 'state', 'subs.json')}`)
  })

  it('updating keeps the secret and does not print it again; flags left out go back to their defaults', async () => {
    const { dir, file } = await tempProject()
    await hookpilot(['subscribe', 'pr-bot', '--prompt', 'old prompt', '--description', 'old'], dir)
    const first = JSON.parse(await readFile(file, 'utf8')).subscriptions['pr-bot'].secret
    const res = await hookpilot(['subscribe', 'pr-bot', '--events', 'push'], dir)
    expect(res.code).toBe(0)
    expect(res.stdout).toContain('Updated')
    expect(res.stdout).not.toContain(first)
    expect(JSON.parse(await readFile(file, 'utf8')).subscriptions['pr-bot']).toMatchObject({ secret: first, events: ['push'] })
    expect(JSON.parse(await readFile(file, 'utf8')).subscriptions['pr-bot']).not.toHaveProperty('prompt')
    expect(JSON.parse(await readFile(file, 'utf8')).subscriptions['pr-bot']).not.toHaveProperty('description')
  })

  it.each([
    [['subscribe'], 2, 'expected one name'],
    [['subscribe', 'Bad Name'], 2, 'not a valid name'],
    [['subscribe', 'a', 'b'], 2, 'expected one name'],
    [['subscribe', 'ok', '--skills', '../etc'], 2, 'skill name'],
    [['subscribe', 'ok', '--secret', ''], 2, '--secret must not be empty'],
    [['subscribe', 'ok', '--nope'], 2, "Unknown option '--nope'"],
    [['subscribe', 'static-pr'], 1, 'static route'],
    [['subscribe', 'open', '--secret', 'INSECURE_NO_AUTH'], 1, 'INSECURE_NO_AUTH'],
    [['subscribe', 'ok', '--config', 'missing.yaml'], 1, 'no such file'],
  ])('%j exits %i with a clear message', async (args, code, message) => {
    const { dir, file } = await tempProject()
    const res = await hookpilot(args, dir)
    expect(res.code).toBe(code)
    expect(res.stderr).toContain(message)
    await expect(readFile(file)).rejects.toThrow(/ENOENT/)
  })

  it('warns (and still writes) when the target is not available to "hookpilot serve"', async () => {
    const { dir, file } = await tempProject()
    const res = await hookpilot(['subscribe', 'tg', '--deliver', 'telegram'], dir)
    expect(res.code).toBe(0)
    expect(res.stderr).toMatch(/Warning: .*telegram/)
    expect(JSON.parse(await readFile(file, 'utf8')).subscriptions.tg.deliver).toBe('telegram')
  })
})

describe('hookpilot list and remove', () => {
  it('lists static and dynamic routes, marked, never showing a secret', async () => {
    const { dir } = await tempProject()
    await hookpilot(['subscribe', 'dyn', '--secret', 'dyn-secret-abcdef', '--description', 'my hook'], dir)
    const res = await hookpilot(['list'], dir)
    expect(res.code, res.stderr).toBe(0)
    expect(res.stdout).toMatch(/static-pr\s+static\s+pull_request\s+log/)
    expect(res.stdout).toMatch(/dyn\s+dynamic\s+\(all\)\s+log\s+my hook/)
    const json = await hookpilot(['list', '--json'], dir)
    expect(JSON.parse(json.stdout).map((r: { name: string; source: string }) => `${r.name}:${r.source}`)).toEqual(['static-pr:static', 'dyn:dynamic'])
    for (const out of [res.stdout + res.stderr, json.stdout]) {
      expect(out).not.toContain('dyn-secret-abcdef')
      expect(out).not.toContain(STATIC_SECRET)
    }
  })

  it('marks a subscription the gateway would skip, and why', async () => {
    const { dir, file } = await tempProject()
    await writeFile(file, JSON.stringify({ version: 1, subscriptions: { nosecret: { events: ['push'] }, tg: { secret: 'tg-secret-123456', deliver: 'telegram' } } }))
    const res = await hookpilot(['list'], dir)
    expect(res.stdout).toMatch(/nosecret\s+dynamic\s+push\s+log\s+NOT SERVED: .*no secret/)
    expect(res.stdout).toMatch(/tg\s+dynamic\s+\(all\)\s+telegram\s+NOT SERVED: .*platforms\.telegram is not enabled/)
  })

  it('reports a corrupt file and exits 1, still listing the static routes', async () => {
    const { dir, file } = await tempProject()
    await writeFile(file, '{"version": 1, "subscriptions": {')
    const res = await hookpilot(['list'], dir)
    expect(res.code).toBe(1)
    expect(res.stdout).toContain('static-pr')
    expect(res.stderr).toMatch(/invalid: not valid JSON/)
  })

  it('removes a dynamic subscription; refuses a static route and an unknown name', async () => {
    const { dir, file } = await tempProject()
    await hookpilot(['subscribe', 'one'], dir)
    await hookpilot(['subscribe', 'two'], dir)
    const removed = await hookpilot(['remove', 'one'], dir)
    expect(removed.code, removed.stderr).toBe(0)
    expect(Object.keys(JSON.parse(await readFile(file, 'utf8')).subscriptions)).toEqual(['two'])
    expect(modeOf(file)).toBe(0o600)
    const fixed = await hookpilot(['remove', 'static-pr'], dir)
    expect(fixed.code).toBe(1)
    expect(fixed.stderr).toContain('is a static route')
    const unknown = await hookpilot(['remove', 'one'], dir)
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('No subscription named "one"')
    expect((await hookpilot(['remove'], dir)).code).toBe(2)
  })
})

describe('hookpilot test and send', () => {
  it('test signs the sample payload with the subscription secret; the running gateway answers 202', async () => {
    const { dir, config } = await tempProject()
    await hookpilot(['subscribe', 'dyn', '--events', 'pull_request'], dir)
    const live = await running(config, dir)
    const res = await hookpilot(['test', 'dyn', '--url', live.url], dir)
    expect(res.code, res.stderr).toBe(0)
    expect(res.stdout).toMatch(/^202 /m)
    expect(res.stdout).toContain('"status":"accepted"')
    expect(res.stdout).toContain('"route":"dyn"')
  })

  it('test takes --payload and --event', async () => {
    const { dir, config } = await tempProject()
    await hookpilot(['subscribe', 'dyn', '--events', 'pull_request'], dir)
    await writeFile(join(dir, 'push.json'), '{"ref": "refs/heads/main"}')
    const live = await running(config, dir)
    const res = await hookpilot(['test', 'dyn', '--payload', 'push.json', '--event', 'push', '--url', live.url], dir)
    expect(res.code).toBe(0)
    expect(res.stdout).toContain('{"status":"ignored","event":"push","reason":"event \\"push\\" is not in the route\'s events [pull_request]"}')
    expect(res.stderr).toContain('does not accept event "push", so no agent ran')
  })

  it('test on a subscription the gateway skipped prints the 404 and says where to look', async () => {
    const { dir, config } = await tempProject()
    await hookpilot(['subscribe', 'tg', '--deliver', 'telegram'], dir)
    const live = await running(config, dir)
    const res = await hookpilot(['test', 'tg', '--url', live.url], dir)
    expect(res.code).toBe(1)
    expect(res.stdout).toMatch(/^404 .*\n\{"error":"Unknown route"\}/m)
    expect(res.stderr).toContain('NOT SERVED')
    expect(live.log.text()).toMatch(/subscription "tg" skipped: .*platforms\.telegram is not enabled/)
  })

  it('test reads only subscriptions: a static route is pointed to "send"', async () => {
    const { dir } = await tempProject()
    const res = await hookpilot(['test', 'static-pr'], dir)
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('hookpilot send static-pr')
  })

  it('send reaches a static route with the secret from the config, and a dynamic one', async () => {
    const { dir, config } = await tempProject()
    await hookpilot(['subscribe', 'dyn'], dir)
    const live = await running(config, dir)
    const fixed = await hookpilot(['send', 'static-pr', '--url', live.url], dir)
    expect(fixed.code, fixed.stderr).toBe(0)
    expect(fixed.stdout).toContain('"route":"static-pr"')
    const dynamic = await hookpilot(['send', 'dyn', '--url', live.url], dir)
    expect(dynamic.stdout).toContain('"route":"dyn"')
    expect(fixed.stdout + dynamic.stdout).not.toContain(STATIC_SECRET)
  })

  it('says clearly when the gateway is not running', async () => {
    const port = await freePort()
    const { dir } = await tempProject({ port })
    await hookpilot(['subscribe', 'dyn'], dir)
    const res = await hookpilot(['test', 'dyn'], dir)
    expect(res.code).toBe(1)
    expect(res.stderr).toContain(`The gateway is not running at http://127.0.0.1:${port}/webhooks/dyn`)
  })

  it.each([
    [['test', 'dyn', '--payload', 'nope.json'], 'cannot read --payload nope.json: no such file'],
    [['test', 'dyn', '--payload', 'config.yaml', '--config', 'config.yaml'], 'is not JSON'],
    [['send', 'ghost'], 'No route named "ghost"'],
    [['test', 'ghost'], 'No subscription named "ghost"'],
    [['send', 'dyn', '--url', 'localhost:1'], '--url takes a base URL'],
  ])('%j fails with a clear message', async (args, message) => {
    const { dir } = await tempProject()
    await writeFile(join(dir, 'config.yaml'), (await readFile(join(dir, 'config.yaml'), 'utf8')) + '\n# YAML, not JSON\n')
    await hookpilot(['subscribe', 'dyn'], dir)
    const res = await hookpilot(args, dir)
    expect(res.code).not.toBe(0)
    expect(res.stderr).toContain(message)
  })
})

it.each(['subscribe', 'list', 'remove', 'test', 'send'])('hookpilot %s --help documents --config and exits 0', async (command) => {
  const { dir } = await tempProject()
  const res = await hookpilot([command, '--help'], dir)
  expect(res.code).toBe(0)
  expect(res.stdout).toContain(`Usage: hookpilot ${command}`)
  expect(res.stdout).toContain('--config FILE')
})

/** A port nothing listens on (bound, then released). */
