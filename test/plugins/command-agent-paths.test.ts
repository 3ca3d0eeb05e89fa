/**
 * A relative script in `agent.command` is read against the config file's folder, as the configuration's other
 * paths are (issue 38, item 14): agents run in their own private folder, so `["node", "agent.mjs"]` beside
 * config.yaml failed every run while `check` called the config valid. A real gateway, a real node child.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createGateway, loadConfig, type AgentAnswer, type Gateway } from '../../src/index.js'
import { commandPaths } from '../../src/plugins/runners/command/command-paths.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { recordingLogger } from '../../src/testing/context.js'
import { asPlugin } from '../fixtures/gateway.js'
import { githubHeaders } from '../fixtures/github.js'

const SECRET = 'route-secret-command-paths-41c2'
// Prints where it runs and what it read, so the test sees the script itself answered.
const SCRIPT = `let input = ''
process.stdin.on('data', (c) => (input += c)).on('end', () => console.log('agent.mjs ran in ' + process.cwd() + ' and read: ' + input.trim()))
`

let gateway: Gateway | undefined
afterEach(async () => {
  await gateway?.close()
  gateway = undefined
})

describe('agent.command paths', () => {
  it('runs ["node", "agent.mjs"] from beside config.yaml, though the agent runs in its own folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-command-paths-'))
    await writeFile(join(dir, 'agent.mjs'), SCRIPT)
    const configFile = join(dir, 'config.yaml')
    await writeFile(configFile, [
      'agent:',
      '  runner: command',
      '  sandbox: off',
      `  command: [${JSON.stringify(process.execPath)}, agent.mjs]`,
      'platforms:',
      '  webhook:',
      '    extra:',
      '      host: 127.0.0.1',
      `      routes: { pr: { secret: "${SECRET}", prompt: "review {action}", deliver: capture } }`,
    ].join('\n'), { mode: 0o600 })
    const answers: AgentAnswer[] = []
    const capture = asPlugin({ name: 'capture', deliveryTargets: [{ name: 'capture', deliver: async (a) => void answers.push(a) }] })
    gateway = await createGateway(await loadConfig(configFile), [asPlugin({ name: 'test', logger: recordingLogger(), state: memoryState({ concurrency: 1, maxQueue: 10 }) }), capture], { baseDir: dir })
    const body = Buffer.from('{"action":"opened"}')
    expect((await gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET), body })).status).toBe(202)
    await expect.poll(() => answers.length, { timeout: 15_000 }).toBe(1)
    const text = answers[0]?.text ?? ''
    expect(text).toMatch(/^agent\.mjs ran in \S+ and read: review opened/)
    // It ran in the agent's own folder, not in the config's.
    expect(text).not.toContain(`ran in ${dir} `)
  })

  it('makes absolute only what names a file there: a program with a path, a file argument; never a flag or a bare word', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-command-paths-'))
    await mkdir(join(dir, 'bin'))
    await writeFile(join(dir, 'bin', 'agent.sh'), '#!/bin/sh\n')
    await writeFile(join(dir, 'prompt.md'), 'x')
    await writeFile(join(dir, 'claude'), 'a file named like the program')
    expect(commandPaths(['./bin/agent.sh', 'prompt.md', '-p', 'review', 'missing.mjs', '/abs/x'], dir)).toEqual([
      join(dir, 'bin', 'agent.sh'), join(dir, 'prompt.md'), '-p', 'review', 'missing.mjs', '/abs/x',
    ])
    // A bare program name is looked up on the PATH, even when a file of that name is beside the config.
    expect(commandPaths(['claude', '-p'], dir)).toEqual(['claude', '-p'])
  })
})
