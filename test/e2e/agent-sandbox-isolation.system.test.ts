/**
 * Issue 39's follow-ups: what a sandboxed agent run may keep and see of its own. With a real bwrap: each run
 * works in a folder of its own (two concurrent jobs cannot see each other's; with the sandbox off they share the
 * gateway's working folder, as before); HOME is an empty private folder (a secret in the real one cannot be
 * read, what the agent writes there never reaches it); `agent.sandbox_paths` are seen read-only; and
 * `agent.network: false` cuts the network (a local TCP server the test starts is out of reach). Each denial is
 * checked against the same attempt working without it, so the test proves the sandbox, not the machine.
 * Needs bwrap and unprivileged user namespaces (.ci/run installs bubblewrap).
 */
import { createServer, type Server } from 'node:net'
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { bubblewrapSandbox, probeBubblewrap } from '../../src/core/agents/setup/agent-sandbox.js'
import { commandAgent } from '../../src/plugins/runners/command/command-runner.js'
import { runProcess } from '../../src/core/agents/run-process.js'
import { openaiAgent } from '../../src/plugins/runners/openai/openai-runner.js'
import { createGateway, loadConfig, type AgentAnswer, type Gateway } from '../../src/index.js'
import type { AgentSandbox } from '../../src/core/types.js'
import { recordingLogger } from '../../src/testing/context.js'
import { asPlugin } from '../fixtures/gateway.js'
import { fakeModel, lastToolResult } from '../fixtures/fake-model.js'
import { githubHeaders } from '../fixtures/github.js'

const SECRET = 'route-secret-sandbox-isolation'

let root: string
let bwrap: string
const closing: (() => Promise<unknown>)[] = []

// Not under /tmp: inside the sandbox /tmp is private anyway, and these must be hidden by the sandbox's own mounts.
beforeAll(async () => {
  const probe = await probeBubblewrap()
  if (!probe.ok) throw new Error(probe.missing)
  bwrap = probe.bwrap
  root = await mkdtemp('/var/tmp/hookpilot-isolation-')
})
afterEach(async () => {
  for (const close of closing.splice(0)) await close()
})
afterAll(() => rm(root, { recursive: true, force: true }))

/** Runs the node program `script` as the agent through the command runner (its answer, or why it failed). */
async function runAgent(script: string, options: { sandbox?: AgentSandbox | undefined; env?: NodeJS.ProcessEnv; cwd?: string }): Promise<string> {
  const runner = commandAgent({ command: [process.execPath, '-e', script], timeoutMs: 15_000, ...options })
  const result = await runner.run({ prompt: '', route: 'pr', event: 'pull_request', deliveryId: 'd' }, { signal: new AbortController().signal, log: recordingLogger() })
  if (!result.ok) throw new Error(result.reason)
  return result.text
}

/** A fake home of the gateway's user, holding what gh keeps there (its token), and a working folder. */
async function gatewayHome(): Promise<{ home: string; workdir: string; env: NodeJS.ProcessEnv }> {
  const dir = await mkdtemp(join(root, 'gateway-'))
  const home = join(dir, 'home')
  await mkdir(join(home, '.config', 'gh'), { recursive: true })
  await writeFile(join(home, '.config', 'gh', 'hosts.yml'), 'github.com:\n  oauth_token: gho_not_a_real_token\n', { mode: 0o600 })
  const workdir = join(dir, 'work')
  await mkdir(workdir)
  return { home, workdir, env: { PATH: process.env['PATH'], HOME: home } }
}

// What an agent answers about one attempt: what it got, or the error's code.
const ATTEMPT = `const attempt = (what) => { try { return 'got ' + what() } catch (err) { return err.code ?? String(err) } }`

describe('HOME inside the sandbox', () => {
  const readsGhToken = `${ATTEMPT}
    const { readFileSync } = require('node:fs')
    process.stdout.write(attempt(() => readFileSync(process.env.HOME + '/.config/gh/hosts.yml', 'utf8').trim()))`

  it('off: the agent reads the token gh keeps in its HOME (what the sandbox must stop)', async () => {
    const { workdir, env } = await gatewayHome()
    expect(await runAgent(readsGhToken, { env, cwd: workdir })).toContain('gho_not_a_real_token')
  })

  it('bubblewrap: the gateway user\'s HOME is an empty folder, its token not there', async () => {
    const { workdir, env } = await gatewayHome()
    expect(await runAgent(readsGhToken, { env, cwd: workdir, sandbox: bubblewrapSandbox(bwrap, [workdir]) })).toBe('ENOENT')
  })

  it('bubblewrap: the agent writes its settings in HOME, and nothing of it reaches the real one', async () => {
    const { home, workdir, env } = await gatewayHome()
    // What Claude Code does at its start: a folder of its own in HOME, written and read back.
    const writesSettings = `${ATTEMPT}
      const { mkdirSync, readFileSync, readdirSync, writeFileSync } = require('node:fs')
      const dir = process.env.HOME + '/.claude'
      process.stdout.write(JSON.stringify({
        home: process.env.HOME,
        write: attempt(() => { mkdirSync(dir); writeFileSync(dir + '/settings.json', '{}'); return readFileSync(dir + '/settings.json', 'utf8') }),
        listing: readdirSync(process.env.HOME).join(','),
      }))`
    const report = JSON.parse(await runAgent(writesSettings, { env, cwd: workdir, sandbox: bubblewrapSandbox(bwrap, [workdir]) })) as Record<string, string>
    expect(report).toEqual({ home, write: 'got {}', listing: '.claude' })
    expect(await readdir(home)).toEqual(['.config'])
  })

  it('bubblewrap: a HOME that is not there points at a private writable folder instead', async () => {
    const { workdir, env } = await gatewayHome()
    const writesHome = `${ATTEMPT}
      const { writeFileSync } = require('node:fs')
      process.stdout.write(process.env.HOME + ' ' + attempt(() => { writeFileSync(process.env.HOME + '/cache', 'x'); return 'written' }))`
    expect(await runAgent(writesHome, { env: { ...env, HOME: '/nonexistent-home-39' }, cwd: workdir, sandbox: bubblewrapSandbox(bwrap, [workdir]) })).toBe('/tmp/home got written')
  })

  it('bubblewrap: agent.sandbox_paths are seen inside the hidden home, read-only', async () => {
    const { home, workdir, env } = await gatewayHome()
    const tools = join(home, 'tools')
    await mkdir(tools)
    await writeFile(join(tools, 'tool.txt'), 'shared tool')
    // A path the gateway keeps private stays hidden inside a share.
    await writeFile(join(tools, 'key.pem'), 'private key')
    const readsShare = `${ATTEMPT}
      const { readFileSync, writeFileSync } = require('node:fs')
      const tools = ${JSON.stringify(tools)}
      process.stdout.write(JSON.stringify({
        read: attempt(() => readFileSync(tools + '/tool.txt', 'utf8')),
        write: attempt(() => writeFileSync(tools + '/tool.txt', 'changed')),
        token: attempt(() => readFileSync(process.env.HOME + '/.config/gh/hosts.yml', 'utf8')),
        key: attempt(() => readFileSync(tools + '/key.pem', 'utf8')),
      }))`
    const sandbox = bubblewrapSandbox(bwrap, [workdir, join(tools, 'key.pem')], undefined, { readOnly: [tools] })
    const { key, ...report } = JSON.parse(await runAgent(readsShare, { env, cwd: workdir, sandbox })) as Record<string, string>
    expect(report).toEqual({ read: 'got shared tool', write: 'EROFS', token: 'ENOENT' })
    // Covered by the empty, unreadable file every hidden file gets.
    expect(key).not.toContain('private key')
    expect(await readFile(join(tools, 'tool.txt'), 'utf8')).toBe('shared tool')
  })
})

describe('agent.network: false', () => {
  let server: Server
  let port: number
  beforeAll(async () => {
    server = createServer((socket) => socket.end('hello from the host\n'))
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready))
    port = (server.address() as { port: number }).port
  })
  afterAll(() => new Promise((done) => server.close(done)))

  const connects = () => `
    const socket = require('node:net').connect(${port}, '127.0.0.1')
    let got = ''
    socket.on('data', (chunk) => { got += chunk })
    socket.on('end', () => process.stdout.write('got ' + got.trim()))
    socket.on('error', (err) => process.stdout.write(err.code ?? String(err)))`

  it('a sandboxed agent reaches a local TCP server while the network is on (the default)', async () => {
    const { workdir, env } = await gatewayHome()
    expect(await runAgent(connects(), { env, cwd: workdir, sandbox: bubblewrapSandbox(bwrap, [workdir]) })).toBe('got hello from the host')
  })

  it('with the network cut, the same agent cannot', async () => {
    const { workdir, env } = await gatewayHome()
    const sandbox = bubblewrapSandbox(bwrap, [workdir], undefined, { network: false })
    // Its own network namespace has a loopback of its own, where nothing listens.
    expect(await runAgent(connects(), { env, cwd: workdir, sandbox })).toBe('ECONNREFUSED')
  })

  it('is refused with agent.sandbox: off, which could not cut it', async () => {
    const dir = await mkdtemp(join(root, 'offline-'))
    const configFile = join(dir, 'config.yaml')
    await writeFile(configFile, 'agent:\n  runner: echo\n  sandbox: off\n  network: false\nstate:\n  driver: memory\n')
    await expect(createGateway(await loadConfig(configFile), [asPlugin({ name: 'test', logger: recordingLogger() })], { baseDir: dir })).rejects.toThrow(/agent\.network: false needs the sandbox/)
  })
})

describe('each sandboxed job works in a folder of its own', () => {
  /**
   * A gateway whose agent (the command runner, two at a time) writes a note in its folder, meets the other
   * job's agent at `barrier` (each learns where the other works), then tries to read the other's note and lists
   * what it sees around its folder.
   */
  async function twoJobs(mode: 'off' | 'bubblewrap'): Promise<{ reports: Record<string, unknown>[]; workdir: string }> {
    const barrier = await meeting(2)
    const dir = await mkdtemp(join(root, 'jobs-'))
    const workdir = join(dir, 'work')
    const agent = `${ATTEMPT}
      const { readFileSync, readdirSync, writeFileSync } = require('node:fs')
      const { dirname, join } = require('node:path')
      const me = require('node:crypto').randomBytes(6).toString('hex')
      writeFileSync('note-' + me, me)
      fetch(${JSON.stringify(barrier.url)}, { method: 'POST', body: JSON.stringify({ me, cwd: process.cwd() }) })
        .then((res) => res.json())
        .then((all) => {
          const other = all.find((job) => job.me !== me)
          process.stdout.write(JSON.stringify({
            cwd: process.cwd(),
            other: attempt(() => readFileSync(join(other.cwd, 'note-' + other.me), 'utf8')),
            here: readdirSync('.').sort().join(','),
            around: attempt(() => readdirSync(dirname(process.cwd())).length + ' entries'),
          }))
        })`
    const configFile = join(dir, 'config.yaml')
    await writeFile(configFile, [
      'agent:',
      '  runner: command',
      `  command: ${JSON.stringify([process.execPath, '-e', agent])}`,
      `  sandbox: ${mode}`,
      '  workdir: ./work',
      '  concurrency: 2',
      'state:',
      '  driver: memory',
      'platforms:',
      '  webhook:',
      '    extra:',
      '      host: 127.0.0.1',
      `      routes: { pr: { secret: "${SECRET}", deliver: capture } }`,
    ].join('\n'))
    const answers: AgentAnswer[] = []
    const capture = asPlugin({ name: 'capture', deliveryTargets: [{ name: 'capture', deliver: async (a: AgentAnswer) => void answers.push(a) }] })
    const gateway: Gateway = await createGateway(await loadConfig(configFile), [asPlugin({ name: 'test', logger: recordingLogger() }), capture], { baseDir: dir })
    closing.push(() => gateway.close())
    for (const action of ['opened', 'synchronize']) {
      const body = Buffer.from(JSON.stringify({ action }))
      expect((await gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET), body })).status).toBe(202)
    }
    await expect.poll(() => answers.length, { timeout: 15_000 }).toBe(2)
    return { reports: answers.map((answer) => JSON.parse(answer.text) as Record<string, unknown>), workdir }
  }

  /** An HTTP server that answers each of `count` POSTs, once all have come, with every body it got. */
  async function meeting(count: number): Promise<{ url: string }> {
    const bodies: unknown[] = []
    const waiting: (() => void)[] = []
    const server: HttpServer = createHttpServer((req, res) => {
      let body = ''
      req.on('data', (chunk: Buffer) => { body += chunk.toString() })
      req.on('end', () => {
        bodies.push(JSON.parse(body))
        waiting.push(() => res.end(JSON.stringify(bodies)))
        if (bodies.length === count) for (const answer of waiting) answer()
      })
    })
    await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready))
    closing.push(() => new Promise((done) => server.close(done)))
    return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/` }
  }

  it('off: both jobs share the gateway\'s working folder, and each reads the other\'s note (as before)', async () => {
    const { reports, workdir } = await twoJobs('off')
    for (const report of reports) {
      expect(report['cwd']).toBe(workdir)
      expect(report['other']).toMatch(/^got [0-9a-f]{12}$/)
    }
  })

  it('bubblewrap: each job has a folder of its own, the other\'s is not there, and both are removed after the run', async () => {
    const { reports, workdir } = await twoJobs('bubblewrap')
    const [first, second] = reports
    expect(first?.['cwd']).not.toBe(second?.['cwd'])
    for (const report of reports) {
      expect(String(report['cwd']).startsWith(`${workdir}/run-`)).toBe(true)
      expect(report['other']).toBe('ENOENT')
      // Its own note only, and around its folder only itself: the shared folder is hidden.
      expect(report['here']).toMatch(/^note-[0-9a-f]{12}$/)
      expect(report['around']).toBe('got 1 entries')
    }
    expect(await readdir(workdir)).toEqual([])
  })
})

describe('a runner that gives the sandbox the shared folder itself', () => {
  it('finds it empty: what other runs left there is not in it', async () => {
    const { workdir, env } = await gatewayHome()
    await writeFile(join(workdir, 'left-by-another-job'), 'x')
    const result = await runProcess([process.execPath, '-e', `process.stdout.write(require('node:fs').readdirSync('.').join(','))`], { cwd: workdir, env, sandbox: bubblewrapSandbox(bwrap, [workdir]) })
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout).toBe('')
    expect(await readdir(workdir)).toEqual(['left-by-another-job'])
  })
})

describe('the openai runner\'s commands in a sandbox', () => {
  it('share one folder of their own for the whole run, removed after it', async () => {
    const { workdir, env } = await gatewayHome()
    const writes = [process.execPath, '-e', `require('node:fs').writeFileSync('diff.txt', 'kept'); process.stdout.write(process.cwd())`]
    const reads = [process.execPath, '-e', `process.stdout.write(require('node:fs').readFileSync('diff.txt', 'utf8'))`]
    const model = await fakeModel((_call, i) => (i === 0 ? { command: writes } : i === 1 ? { command: reads } : { content: 'done' }))
    closing.push(() => model.close())
    const runner = openaiAgent({
      baseUrl: model.url, model: 'm', allowCommands: [[process.execPath, '-e']], env, cwd: workdir, sandbox: bubblewrapSandbox(bwrap, [workdir]),
    })
    const result = await runner.run({ prompt: 'review', route: 'pr', event: 'pull_request', deliveryId: 'd' }, { signal: new AbortController().signal, log: recordingLogger() })
    expect(result).toEqual({ ok: true, text: 'done' })
    expect(lastToolResult(model.calls[1])).toMatch(new RegExp(`^${workdir}/run-\\w+$`))
    expect(lastToolResult(model.calls[2])).toBe('kept')
    expect(await readdir(workdir)).toEqual([])
  })
})

describe('an agent CLI installed in the gateway user\'s home', () => {
  /**
   * A gateway whose HOME is a fake one holding the agent (`~/.local/bin/agent`, and a node script beside it),
   * with `agentKeys`; its `agent.command` is `command` of that folder, the agent itself by default.
   */
  async function gatewayWithAgentInHome(agentKeys: string[], command = (bin: string) => [join(bin, 'agent')]): Promise<{ gateway: Gateway; answers: AgentAnswer[] }> {
    const dir = await mkdtemp(join(root, 'home-agent-'))
    const home = join(dir, 'home')
    const bin = join(home, '.local', 'bin')
    await mkdir(bin, { recursive: true })
    await writeFile(join(bin, 'agent'), '#!/bin/sh\necho from the home\n', { mode: 0o755 })
    await writeFile(join(bin, 'agent.mjs'), 'process.stdout.write("from the home")\n')
    const configFile = join(dir, 'config.yaml')
    await writeFile(configFile, [
      'agent:',
      `  command: ${JSON.stringify(command(bin))}`,
      ...['runner: command', 'sandbox: bubblewrap', ...agentKeys].map((line) => `  ${line}`),
      'state:',
      '  driver: memory',
      'platforms:',
      '  webhook:',
      '    extra:',
      '      host: 127.0.0.1',
      `      routes: { pr: { secret: "${SECRET}", deliver: capture } }`,
    ].join('\n'))
    const answers: AgentAnswer[] = []
    const capture = asPlugin({ name: 'capture', deliveryTargets: [{ name: 'capture', deliver: async (a: AgentAnswer) => void answers.push(a) }] })
    // The gateway's HOME is read when it is composed (its own, and the agent's environment).
    const saved = process.env['HOME']
    process.env['HOME'] = home
    try {
      const gateway = await createGateway(await loadConfig(configFile), [asPlugin({ name: 'test', logger: recordingLogger() }), capture], { baseDir: dir })
      closing.push(() => gateway.close())
      return { gateway, answers }
    } finally {
      process.env['HOME'] = saved
    }
  }

  it('is refused at start, since the sandbox hides the home: with what to do', async () => {
    const refused = /agent\.command: the agent command ".*" needs \/\S+\/home\/\.local\/bin\/agent(\.mjs)?, which the agent's sandbox hides .*share \/\S+\/home\/\.local\/bin read-only with agent\.sandbox_paths/
    await expect(gatewayWithAgentInHome([])).rejects.toThrow(refused)
    // A script it runs, named by its path, is as hidden as a program.
    await expect(gatewayWithAgentInHome([], (bin) => [process.execPath, join(bin, 'agent.mjs')])).rejects.toThrow(refused)
  })

  it('runs, read-only, once agent.sandbox_paths shares its folder', async () => {
    const { gateway, answers } = await gatewayWithAgentInHome(['sandbox_paths: ["./home/.local/bin"]'])
    const body = Buffer.from('{"action":"opened"}')
    expect((await gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET), body })).status).toBe(202)
    await expect.poll(() => answers.length, { timeout: 15_000 }).toBe(1)
    expect(answers[0]?.text).toBe('from the home')
  })
})
