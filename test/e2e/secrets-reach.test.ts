/**
 * What the audit found (issue 13.5), replayed with a real agent process: a failing command agent that prints
 * GH_TOKEN, a variable holding part of the route secret, and the subscriptions file it finds in its working
 * directory. Nothing of it may reach the log or the job's stored reason, the agent must not run in the
 * gateway's folder, and the part of a secret must not reach it at all.
 */
import { mkdtemp, readdir, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError, createGateway, loadConfig, type AgentAnswer, type Gateway } from '../../src/index.js'
import { asPlugin } from '../fixtures/gateway.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { recordingLogger } from '../../src/testing/context.js'
import { githubHeaders } from '../fixtures/github.js'

// Not shaped like a GitHub token: it is redacted because the variable's name says it is a credential.
const GH_TOKEN = 'github-credential-value-7f3a9c'
const PART = 'part-of-the-route-secret-91f3'
const SUBSCRIPTION_SECRET = 'subscription-secret-5d2e8a'
const VARS = { GH_TOKEN, HP_TEST_PART: PART }

let gateway: Gateway | undefined
afterEach(async () => {
  await gateway?.close()
  gateway = undefined
  for (const key of Object.keys(VARS)) delete process.env[key]
})

// The agent tells everything it can reach on stderr, then fails.
const AGENT = `
const fs = require('node:fs')
let file = ''
try { file = fs.readFileSync('.subscriptions.json', 'utf8') } catch (e) { file = 'no .subscriptions.json here' }
let shared = ''
try { shared = fs.readFileSync(process.argv[1], 'utf8') } catch {}
process.stderr.write(['cwd=' + process.cwd(), 'token=' + process.env.GH_TOKEN, 'part=' + (process.env.HP_TEST_PART ?? 'absent'), file, shared].join('\\n'))
process.exit(3)
`

async function setup(extraConfig = '') {
  Object.assign(process.env, VARS)
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-secrets-'))
  const subscriptions = join(dir, '.subscriptions.json')
  await writeFile(subscriptions, JSON.stringify({ version: 1, subscriptions: { sub: { secret: SUBSCRIPTION_SECRET } } }), { mode: 0o600 })
  const configFile = join(dir, 'config.yaml')
  await writeFile(configFile, [
    'agent:',
    '  runner: command',
    `  command: [${JSON.stringify(process.execPath)}, "-e", ${JSON.stringify(AGENT)}, ${JSON.stringify(subscriptions)}]`,
    '  retry: { attempts: 1 }', // the failed run fails its job at once: what it told is read from there
    // The shared working folder without a sandbox (a sandboxed run gets one of its own inside it, removed after the
    // run: agent-sandbox-isolation.system.test.ts); the same on a machine with bubblewrap and one without.
    '  sandbox: off',
    extraConfig,
    'platforms:',
    '  webhook:',
    '    extra:',
    '      host: 127.0.0.1',
    '      routes:',
    '        pr: { secret: "pre-${HP_TEST_PART}" }',
  ].join('\n'))
  return { dir, configFile }
}

describe('secrets and the agent', () => {
  it('a failing agent\'s stderr reaches neither the log nor the stored reason with a secret in it; it runs elsewhere, without the part', async () => {
    const { dir, configFile } = await setup()
    const log = recordingLogger()
    const state = memoryState({ concurrency: 1, maxQueue: 10 })
    gateway = await createGateway(await loadConfig(configFile), [asPlugin({ name: 'test', logger: log, state })], { baseDir: dir })
    const body = Buffer.from('{"action":"opened"}')
    const res = await gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, `pre-${PART}`, 'leak-1'), body })
    expect(res.status).toBe(202)
    await expect.poll(async () => (await state.jobs.list())[0]?.state, { timeout: 15_000 }).toBe('failed')

    const reason = (await state.jobs.list())[0]?.lastError ?? ''
    const logged = log.text()
    expect(reason).toContain('exited with code 3')
    for (const text of [reason, logged]) {
      expect(text).toContain('no .subscriptions.json here') // its folder is not the gateway's
      expect(text).toContain('part=absent') // the variable holding part of the route secret was kept from it
      for (const secret of [GH_TOKEN, PART, SUBSCRIPTION_SECRET]) expect(text).not.toContain(secret)
      expect(text).toContain('token=[redacted]')
    }
    const cwd = /cwd=(\S+)/.exec(reason)?.[1] ?? ''
    expect(cwd).not.toBe(dir)
    expect(cwd).not.toBe(process.cwd())
    expect(cwd.startsWith(tmpdir())).toBe(true)
    expect((await stat(cwd)).mode & 0o777).toBe(0o700)
    await gateway.close()
    gateway = undefined
    // The private folder goes with the gateway.
    await expect(stat(cwd)).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('agent.workdir names the folder; one that holds the config or the subscriptions file is refused', async () => {
    const { dir, configFile } = await setup('  workdir: ./work')
    const state = memoryState({ concurrency: 1, maxQueue: 10 })
    gateway = await createGateway(await loadConfig(configFile), [asPlugin({ name: 'test', logger: recordingLogger(), state })], { baseDir: dir })
    const body = Buffer.from('{}')
    await gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('ping', body, `pre-${PART}`), body })
    await expect.poll(async () => (await state.jobs.list())[0]?.state, { timeout: 15_000 }).toBe('failed')
    expect((await state.jobs.list())[0]?.lastError).toContain(`cwd=${join(dir, 'work')}`)
    expect(await readdir(dir)).toContain('work')

    const refused = await setup('  workdir: .')
    const err = await createGateway(await loadConfig(refused.configFile), [], { baseDir: refused.dir }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as ConfigError).issues).toEqual([{ path: 'agent.workdir', message: expect.stringContaining('whose secrets an agent would find there') }])
  })

  it('an answer that quotes a secret is delivered with the secret redacted', async () => {
    const answers: AgentAnswer[] = []
    const capture = asPlugin({ name: 'capture', deliveryTargets: [{ name: 'capture', deliver: async (a) => void answers.push(a) }] })
    gateway = await createGateway({
      agent: { runner: 'echo' },
      platforms: { webhook: { extra: { host: '127.0.0.1', routes: { pr: { secret: 'route-secret-4b1d', prompt: 'title: {title}', deliver: 'capture' } } } } },
    }, [asPlugin({ name: 'test', logger: recordingLogger(), state: memoryState({ concurrency: 1, maxQueue: 10 }) }), capture])
    const body = Buffer.from(JSON.stringify({ title: 'please post route-secret-4b1d' }))
    await gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('ping', body, 'route-secret-4b1d'), body })
    await expect.poll(() => answers.length, { timeout: 10_000 }).toBe(1)
    expect(answers[0]?.text).toContain('please post [redacted]')
  })

  it('a secret written as a YAML number is refused without being echoed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-secrets-'))
    const file = join(dir, 'config.yaml')
    await writeFile(file, 'platforms:\n  webhook:\n    extra:\n      secret: 8675309123\n      routes:\n        pr: { secret: 4155550123 }\n')
    const err = await loadConfig(file).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConfigError)
    const message = (err as Error).message
    expect(message).toContain('platforms.webhook.extra.routes.pr.secret: expected a string or a list of strings, got a number (write secrets in quotes)')
    expect(message).toContain('platforms.webhook.extra.secret: expected')
    expect(message).not.toContain('8675309123')
    expect(message).not.toContain('4155550123')
  })
})
