/**
 * Issue 25, item 17: an agent running as the gateway's user read `/proc/<gateway>/environ` and the config file
 * its command line names. With `agent.user`, the agent (a real process, test/fixtures/agents/read-gateway.mjs)
 * runs as that account, and the kernel refuses it both. The tests run as root, as the gateway must to switch;
 * run as another user, the first test checks the refusal that user gets instead.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError, createGateway, loadConfig, type AgentAnswer, type Gateway } from '../../src/index.js'
import { asPlugin } from '../fixtures/gateway.js'
import { resolveAgentUser } from '../../src/core/agents/agent-user.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { recordingLogger } from '../../src/testing/context.js'
import { githubHeaders } from '../fixtures/github.js'

const SECRET = 'route-secret-agent-user-5e7d'
const AGENT = fileURLToPath(new URL('../fixtures/agents/read-gateway.mjs', import.meta.url))
const ROOT = process.geteuid?.() === 0
const NOBODY = 65534

let gateway: Gateway | undefined
afterEach(async () => {
  await gateway?.close()
  gateway = undefined
})

/** A gateway whose command agent is read-gateway.mjs, with `agentKeys` added under `agent:`; answers its one run. */
async function answerOf(agentKeys: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-agent-user-'))
  const configFile = join(dir, 'config.yaml')
  await writeFile(configFile, [
    'agent:',
    '  runner: command',
    // What agent.user alone keeps out (the sandbox, on by default where bwrap works, is test/e2e/agent-sandbox.system.test.ts's).
    '  sandbox: off',
    `  command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(AGENT)}, "${process.pid}", ${JSON.stringify(configFile)}]`,
    ...agentKeys.map((line) => `  ${line}`),
    'platforms:',
    '  webhook:',
    '    extra:',
    '      host: 127.0.0.1',
    `      routes: { pr: { secret: "${SECRET}", deliver: capture } }`,
  ].join('\n'), { mode: 0o600 })
  const answers: AgentAnswer[] = []
  const capture = asPlugin({ name: 'capture', deliveryTargets: [{ name: 'capture', deliver: async (a) => void answers.push(a) }] })
  gateway = await createGateway(await loadConfig(configFile), [asPlugin({ name: 'test', logger: recordingLogger(), state: memoryState({ concurrency: 1, maxQueue: 10 }) }), capture], { baseDir: dir })
  const body = Buffer.from('{"action":"opened"}')
  expect((await gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET), body })).status).toBe(202)
  await expect.poll(() => answers.length, { timeout: 15_000 }).toBe(1)
  return answers[0]?.text ?? ''
}

describe('agent.user', () => {
  it('runs the agent as that account: it cannot read the gateway\'s /proc environ nor its config file', async () => {
    if (!ROOT) {
      // Not root: the switch cannot be made, and the gateway says so rather than run the agent as itself.
      await expect(answerOf(['user: nobody'])).rejects.toThrow(/agent\.user: the gateway runs as uid \d+ and cannot start programs as "nobody"/)
      return
    }
    // As the gateway's own user (root here), the agent reads both: this is what agent.user is for.
    const same = await answerOf([])
    expect(same).toMatch(/^uid=0 /m)
    expect(same).toMatch(/^environ=read \d+ bytes$/m)
    expect(same).toMatch(/^config=read \d+ bytes$/m)
    await gateway?.close()
    gateway = undefined

    const other = await answerOf(['user: nobody'])
    expect(other).toContain(`uid=${NOBODY} gid=${NOBODY} groups=${NOBODY}`)
    expect(other).toMatch(/^environ=EACCES$/m)
    expect(other).toMatch(/^config=EACCES$/m)
    // Its command line is public (see docs/security.md): it names the config file, which it cannot read.
    expect(other).toMatch(/^cmdline=read \d+ bytes$/m)
    expect(other).toContain('home=/nonexistent user=nobody')
    // Its private working folder is its own.
    expect(other).toContain('cwd_writable=yes')
  })

  it('agent.group picks the group; an unknown user or group is a ConfigError naming the key', async () => {
    if (ROOT) expect(await answerOf(['user: nobody', 'group: daemon'])).toMatch(new RegExp(`^uid=${NOBODY} gid=1 groups=1$`, 'm'))
    const err = await answerOf(['user: no-such-user-hp25', 'group: no-such-group-hp25']).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConfigError)
    const paths = (err as ConfigError).issues.map((issue) => `${issue.path}: ${issue.message}`)
    expect(paths).toContainEqual(expect.stringMatching(/^agent\.user: there is no user "no-such-user-hp25" on this machine/))
    expect(paths).toContainEqual(expect.stringMatching(/^agent\.group: there is no group "no-such-group-hp25"/))
    await expect(resolveAgentUser('root', undefined)).rejects.toThrow(/"root" is root: give the agent an account of its own/)
    await expect(resolveAgentUser(undefined, 'daemon')).rejects.toThrow(/agent\.group: needs agent\.user/)
  })

  it('a gateway that is not root is refused, with what to do instead', async () => {
    const script = `import('${new URL('../../dist/core/agents/agent-user.js', import.meta.url).href}')
      .then((m) => m.resolveAgentUser('daemon', undefined)).then(() => console.log('switched'), (e) => console.log(e.message))`
    // As root, the check itself runs as nobody; as another user, as that user.
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', ...(ROOT ? { uid: NOBODY, gid: NOBODY } : {}) })
    expect(out).toMatch(/agent\.user: the gateway runs as uid \d+ and cannot start programs as "daemon": run it as root/)
    expect(out).toContain('Capabilities (CAP_SETUID) are not enough')
  })
})
