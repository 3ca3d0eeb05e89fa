/**
 * Issue 39: agents run in a bubblewrap sandbox. A real bwrap runs a real agent (test/fixtures/agents/intruder.mjs)
 * that does what a prompt-injected one would: walks /proc for its gateway and reads its environ, cmdline and cwd;
 * reads the state file, config.yaml, a key file and the subscriptions file; writes outside its folder; leaves a
 * process behind. Each attempt works with `agent.sandbox: off` (so the machine allows it, and the test proves the
 * sandbox) and fails inside the sandbox, through the command runner and the openai runner's allowed commands.
 * Needs bwrap and unprivileged user namespaces (.ci/run installs bubblewrap).
 */
import { randomBytes } from 'node:crypto'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { probeBubblewrap, bubblewrapSandbox } from '../../src/core/agents/setup/agent-sandbox.js'
import { runProcess } from '../../src/core/agents/run-process.js'
import { createGateway, loadConfig, type AgentAnswer, type Gateway } from '../../src/index.js'
import { asPlugin } from '../fixtures/gateway.js'
import { recordingLogger } from '../../src/testing/context.js'
import { fakeModel, type FakeModel } from '../fixtures/fake-model.js'
import { githubHeaders } from '../fixtures/github.js'

const SECRET = 'route-secret-sandbox-39'
const INTRUDER = fileURLToPath(new URL('../fixtures/agents/intruder.mjs', import.meta.url))

/** What intruder.mjs answers. */
interface Report {
  readonly walk_found_gateway: boolean
  readonly [attempt: string]: string | boolean
}

let root: string
let gateway: Gateway | undefined
let model: FakeModel | undefined
const markers: string[] = []

// Not under /tmp: inside the sandbox /tmp is private anyway, and these must be hidden by the sandbox's own mounts.
beforeAll(async () => {
  root = await mkdtemp('/var/tmp/hookpilot-sandbox-')
})
afterEach(async () => {
  await gateway?.close()
  gateway = undefined
  await model?.close()
  model = undefined
  for (const pid of await markedProcesses(markers)) process.kill(pid, 'SIGKILL')
})
afterAll(() => rm(root, { recursive: true, force: true }))

/** Host pids whose command line carries one of `marks`. */
async function markedProcesses(marks: readonly string[]): Promise<number[]> {
  const found: number[] = []
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '')
    if (marks.some((mark) => cmdline.includes(mark))) found.push(Number(name))
  }
  return found
}

/**
 * A gateway (config.yaml, its subscriptions file, a sqlite state folder and a key file in a folder of its own)
 * whose agent is intruder.mjs, run by `runner` with `agent.sandbox: mode`; answers the report of its one run and
 * the marker of the process it left behind.
 */
async function intrude(mode: 'off' | 'bubblewrap', runner: 'command' | 'openai', agentKeys: string[] = []): Promise<{ report: Report; marker: string }> {
  const dir = await mkdtemp(join(root, 'gateway-'))
  const configFile = join(dir, 'config.yaml')
  const keyFile = join(dir, 'keys', 'app.pem')
  await mkdir(join(dir, 'keys'))
  await writeFile(keyFile, '-----BEGIN RSA PRIVATE KEY-----\nnot a real key\n-----END RSA PRIVATE KEY-----\n', { mode: 0o600 })
  await writeFile(join(dir, '.subscriptions.json'), JSON.stringify({ version: 1, subscriptions: { sub: { secret: 'subscription-secret-39' } } }), { mode: 0o600 })
  const marker = `hookpilot-left-behind-${randomBytes(6).toString('hex')}`
  markers.push(marker)
  const intruder = [process.execPath, INTRUDER, JSON.stringify({
    gateway: process.pid,
    files: { config: configFile, state: join(dir, 'state', 'state.db'), key: keyFile, subscriptions: join(dir, '.subscriptions.json') },
    outside: join(dir, 'escaped.txt'),
    marker,
  })]
  model = runner === 'openai' ? await fakeModel((_call, i) => (i === 0 ? { command: intruder } : { content: 'done' })) : undefined
  const runnerKeys = runner === 'command'
    ? ['runner: command', `command: ${JSON.stringify(intruder)}`]
    : ['runner: openai', `base_url: ${JSON.stringify(model?.url)}`, 'api_key: sk-test', 'model: m', `allow_commands: [${JSON.stringify(intruder.slice(0, 2))}]`]
  await writeFile(configFile, [
    'agent:',
    ...[...runnerKeys, `sandbox: ${mode}`, ...agentKeys].map((line) => `  ${line}`),
    'state:',
    '  driver: sqlite',
    '  path: ./state/state.db',
    'platforms:',
    '  webhook:',
    '    extra:',
    '      host: 127.0.0.1',
    `      routes: { pr: { secret: "${SECRET}", deliver: capture } }`,
  ].join('\n'), { mode: 0o600 })
  const answers: AgentAnswer[] = []
  const capture = { name: 'capture', deliver: async (a: AgentAnswer) => void answers.push(a) }
  // The key file stands for any plugin's private file (the GitHub App's key is one): named, it is hidden.
  const keys = { name: 'keys', privatePaths: [keyFile] }
  gateway = await createGateway(await loadConfig(configFile), [asPlugin({ name: 'test', logger: recordingLogger() }), asPlugin(keys), asPlugin({ name: 'capture', deliveryTargets: [capture] })], { baseDir: dir })
  const body = Buffer.from('{"action":"opened"}')
  expect((await gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET), body })).status).toBe(202)
  await expect.poll(() => answers.length, { timeout: 15_000 }).toBe(1)
  if (runner === 'command') return { report: JSON.parse(answers[0]?.text ?? '') as Report, marker }
  // The openai runner hands the command's output to the model as the tool's result.
  const tool = model?.calls[1]?.body.messages.find((m) => m.role === 'tool')?.content ?? ''
  return { report: JSON.parse(tool.slice(tool.indexOf('{'), tool.lastIndexOf('}') + 1)) as Report, marker }
}

const READ = /^(read [1-9]\d* bytes|got \S+)$/

describe.each(['command', 'openai'] as const)('agent.sandbox with the %s runner', (runner) => {
  it('off: every attempt of a prompt-injected agent works on this machine (what the sandbox must stop)', async () => {
    const { report, marker } = await intrude('off', runner)
    expect(report.walk_found_gateway).toBe(true)
    for (const attempt of ['environ', 'cmdline', 'cwd', 'config', 'state', 'key', 'subscriptions']) expect(report[attempt], attempt).toMatch(READ)
    expect(report['write_outside']).toBe('got written')
    // What it left behind outlives the run.
    expect(await markedProcesses([marker])).toHaveLength(1)
  })

  it('bubblewrap: the gateway is not in its /proc, its files are hidden, the root is read-only, nothing outlives the run', async () => {
    const { report, marker } = await intrude('bubblewrap', runner)
    expect(report.walk_found_gateway).toBe(false)
    for (const attempt of ['environ', 'cmdline', 'cwd']) expect(report[attempt], attempt).toBe('ENOENT')
    for (const attempt of ['config', 'state', 'key', 'subscriptions']) expect(report[attempt], attempt).not.toMatch(READ)
    expect(report['write_outside']).toBe('EROFS')
    // The PID namespace ended with the agent, taking the process it left behind with it.
    await expect.poll(() => markedProcesses([marker])).toEqual([])
  })
})

describe('agent.sandbox with agent.user', () => {
  it('runs the agent as that account inside the sandbox', async () => {
    if (process.geteuid?.() !== 0) {
      // Not root: the switch cannot be made (test/e2e/agent-user.test.ts), sandbox or not.
      await expect(intrude('bubblewrap', 'command', ['user: nobody'])).rejects.toThrow(/agent\.user: the gateway runs as uid/)
      return
    }
    const { report } = await intrude('bubblewrap', 'command', ['user: nobody'])
    expect(report['uid']).toBe('got 65534')
    expect(report.walk_found_gateway).toBe(false)
    for (const attempt of ['environ', 'config', 'state', 'key', 'subscriptions']) expect(report[attempt], attempt).not.toMatch(READ)
  })
})

describe('a sandboxed run ends with everything in it', () => {
  // What holds: the run ends at its timeout and nothing in the sandbox outlives it. Whether the agent's own SIGTERM
  // handler runs is a race: the group's SIGTERM also ends bwrap, whose --die-with-parent then kills the agent
  // (docs/security.md says so); it ran in 2 of 3 tries here, so the test does not ask for it.
  it('a timeout ends the run and the whole sandbox, what the agent left behind included', async () => {
    const probe = await probeBubblewrap()
    if (!probe.ok) throw new Error(probe.missing)
    const cwd = await mkdtemp(join(root, 'run-'))
    const marker = `hookpilot-timeout-${randomBytes(6).toString('hex')}`
    markers.push(marker)
    // Leaves a process of its own session behind, says it is ready, and never ends by itself.
    const agent = `
      const { spawn } = require('node:child_process')
      spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)', ${JSON.stringify(marker)}], { detached: true, stdio: 'ignore' }).unref()
      process.stdout.write('ready')
      setInterval(() => {}, 1_000)`
    const started = Date.now()
    const result = await runProcess([process.execPath, '-e', agent], { sandbox: bubblewrapSandbox(probe.bwrap, []), cwd, timeoutMs: 5_000, killGraceMs: 1_000 })
    expect(result.timedOut).toBe(true)
    expect(result.stdout).toBe('ready')
    // Ended by the timeout and its grace, not by the 60 s the leftover would have lasted.
    expect(Date.now() - started).toBeLessThan(15_000)
    await expect.poll(() => markedProcesses([marker])).toEqual([])
  })

  it('a program that is not there is ENOENT, as without the sandbox', async () => {
    const probe = await probeBubblewrap()
    if (!probe.ok) throw new Error(probe.missing)
    const result = await runProcess(['no-such-agent-39'], { sandbox: bubblewrapSandbox(probe.bwrap, []), cwd: root })
    expect(result.error?.code).toBe('ENOENT')
  })
})
