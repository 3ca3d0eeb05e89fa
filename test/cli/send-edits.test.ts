/**
 * `hookpilot send --action/--head/--set/--delivery` (issue 38, item 8): the payload edits, their errors, and what
 * reaches the wire, through the real command against a node:http server that records what it was sent.
 */
import { createHmac } from 'node:crypto'
import { once } from 'node:events'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UsageError } from '../../src/cli/args.js'
import type { CliIO } from '../../src/cli/io.js'
import { applyPayloadEdits, parseSet } from '../../src/cli/payload-edits.js'
import { main } from '../../src/cli/run.js'

const SECRET = 'send-edits-secret-0123'
const HEAD = 'c0ffee0000000000000000000000000000000001'

describe('the payload edits', () => {
  const pr = () => ({ action: 'opened', number: 42, pull_request: { title: 'Old', head: { sha: 'a'.repeat(40), ref: 'x' }, labels: [{ name: 'a' }] } })

  it('--set reads JSON when it is JSON, else text, follows dots into objects and lists, and applies in order', () => {
    const { payload, warnings } = applyPayloadEdits(pr(), 'pull_request', {
      sets: ['number=7', 'pull_request.title=Fix the build', 'pull_request.draft=true', 'pull_request.labels.0.name="7"', 'pull_request.labels.1={"name":"b"}', 'number=8'],
    })
    expect(payload).toMatchObject({ number: 8, pull_request: { title: 'Fix the build', draft: true, labels: [{ name: '7' }, { name: 'b' }] } })
    expect(warnings).toEqual([])
  })

  it('--head sets the pull request head and after; --action sets the action (object_attributes.action for GitLab)', () => {
    expect(applyPayloadEdits(pr(), 'pull_request', { action: 'synchronize', head: HEAD }).payload).toMatchObject({ action: 'synchronize', after: HEAD, pull_request: { head: { sha: HEAD, ref: 'x' } } })
    const mr = { object_attributes: { iid: 1, action: 'open' } }
    expect(applyPayloadEdits(mr, 'Merge Request Hook', { action: 'update' }).payload).toEqual({ object_attributes: { iid: 1, action: 'update' } })
  })

  it('a bad path is refused with what to write instead', () => {
    const refused = (set: string) => {
      try {
        applyPayloadEdits(pr(), 'pull_request', { sets: [set] })
      } catch (err) {
        expect(err).toBeInstanceOf(UsageError)
        return (err as Error).message
      }
      throw new Error(`--set ${set} was accepted`)
    }
    expect(refused('title')).toMatch(/takes PATH=VALUE, e\.g\..*has no "="/)
    expect(refused('=1')).toMatch(/no path before "="/)
    expect(refused('pull_request..title=x')).toMatch(/has an empty key; write the keys separated by single dots/)
    expect(refused('pull_requst.title=x')).toMatch(/the payload has no key "pull_requst" \(did you mean "pull_request"\?\)/)
    expect(refused('pull_request.base.ref=x')).toMatch(/pull_request has no key "base" \(its keys: title, head, labels\)\. To add a new object there, set pull_request\.base to a JSON object/)
    expect(refused('pull_request.title.text=x')).toMatch(/pull_request\.title is a string \("Old"\), not an object, so it has no key "text"; set pull_request\.title itself/)
    expect(refused('pull_request.labels.first=x')).toMatch(/pull_request\.labels is a list of 1, so its key must be an index from 0 to 1/)
    expect(refused('pull_request.labels.5={}')).toMatch(/an index from 0 to 1 \(1 adds one\), not "5"/)
    expect(refused('__proto__.polluted=1')).toMatch(/"__proto__" cannot be set/)
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined()
  })

  it('a new last key is added, with a warning when an existing key is close to it', () => {
    const { payload, warnings } = applyPayloadEdits(pr(), 'pull_request', { sets: ['pull_request.head.sah=1', 'pull_request.milestone=null'] })
    expect(payload.pull_request).toMatchObject({ head: { sah: 1 }, milestone: null })
    expect(warnings).toEqual(['--set pull_request.head.sah=1: pull_request.head had no key "sah", so it was added; did you mean "pull_request.head.sha"?'])
  })

  it('--head takes only a SHA, and only where the payload has a pull request', () => {
    expect(() => applyPayloadEdits(pr(), 'pull_request', { head: 'main' })).toThrow('--head takes a commit SHA (7 to 64 hex digits), not "main".')
    expect(() => applyPayloadEdits({ ref: 'refs/heads/main' }, 'push', { head: HEAD })).toThrow(/this push payload has no pull_request: use --set PATH=SHA/)
    expect(parseSet('a=b=c')).toEqual({ path: ['a'], value: 'b=c' })
  })
})

describe('hookpilot send, through the wire', () => {
  let dir: string
  let config: string
  let server: Server
  let url: string
  const received: { headers: IncomingHttpHeaders; body: Buffer }[] = []

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hookpilot-send-edits-'))
    config = join(dir, 'config.yaml')
    await writeFile(config, `agent: { runner: echo }
state: { driver: memory }
platforms:
  webhook:
    enabled: true
    extra:
      host: 127.0.0.1
      port: 9
      routes:
        pr-review:
          secret: ${SECRET}
          events: [pull_request]
          actions: [opened, synchronize]
          prompt: "{pull_request.head.sha}"
          deliver: log
`)
    server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks) })
        res.writeHead(202, { 'content-type': 'application/json' }).end('{"status":"accepted"}')
      })
    })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    server.close()
    await rm(dir, { recursive: true, force: true })
  })

  const send = async (...args: string[]) => {
    const io = captured(dir)
    const code = await main(['send', 'pr-review', '--config', config, '--url', url, ...args], io)
    return { code, stdout: io.out(), stderr: io.err() }
  }

  it('sends a synchronize of the chosen head, signed over the edited bytes, under the delivery id asked for', async () => {
    const sent = await send('--action', 'synchronize', '--head', HEAD, '--set', 'pull_request.title=Three pushes', '--delivery', 'delivery-one')
    expect(sent).toMatchObject({ code: 0, stdout: expect.stringContaining('delivery delivery-one') })
    const last = received.at(-1)
    const payload = JSON.parse(last?.body.toString('utf8') ?? '{}') as { action: string; after: string; pull_request: { head: { sha: string }; title: string } }
    expect(payload).toMatchObject({ action: 'synchronize', after: HEAD, pull_request: { head: { sha: HEAD }, title: 'Three pushes' } })
    expect(last?.headers['x-github-delivery']).toBe('delivery-one')
    expect(last?.headers['x-hub-signature-256']).toBe(`sha256=${createHmac('sha256', SECRET).update(last?.body ?? '').digest('hex')}`)

    // The same id again, as GitHub's Redeliver sends it; without --delivery, a new id each time.
    await send('--delivery', 'delivery-one', '--action', 'synchronize', '--head', HEAD)
    expect(received.at(-1)?.headers['x-github-delivery']).toBe('delivery-one')
    await send()
    await send()
    const [a, b] = received.slice(-2).map((r) => r.headers['x-github-delivery'])
    expect(a).toMatch(/^[0-9a-f-]{36}$/)
    expect(b).not.toBe(a)
  })

  it('refuses a bad --delivery, --head or --set before sending anything', async () => {
    const before = received.length
    expect(await send('--delivery', 'two words')).toMatchObject({ code: 2, stderr: expect.stringContaining('--delivery takes an id of 1 to 200 visible characters without spaces') })
    expect(await send('--head', 'HEAD~1')).toMatchObject({ code: 2, stderr: expect.stringContaining('--head takes a commit SHA') })
    expect(await send('--set', 'pull_request.heads.sha=1')).toMatchObject({ code: 2, stderr: expect.stringContaining('did you mean "pull_request.head"?') })
    expect(received).toHaveLength(before)
  })
})

/** Streams that keep what a command writes. */
function captured(cwd: string): CliIO & { out(): string; err(): string } {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  let out = ''
  let err = ''
  stdout.on('data', (d: Buffer) => (out += d.toString()))
  stderr.on('data', (d: Buffer) => (err += d.toString()))
  return { stdout, stderr, env: { PATH: process.env['PATH'] ?? '' }, cwd, out: () => out, err: () => err }
}
