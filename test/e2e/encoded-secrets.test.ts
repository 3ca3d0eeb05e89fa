/**
 * Issue 25, item 17: a prompt-injected agent read the gateway's config file and posted the route secret
 * base64-encoded and reversed; only the verbatim copy was redacted. Replayed with a real agent process
 * (test/fixtures/agents/leak-encoded.mjs) that answers with the secret in every common encoding and the whole
 * file encoded: neither the delivered answer nor the log holds the secret in any of them. The checks decode
 * what was delivered on their own, so they do not trust the redactor's list of forms.
 */
import { execFileSync } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { createGateway, loadConfig, type AgentAnswer, type Gateway } from '../../src/index.js'
import { asPlugin } from '../fixtures/gateway.js'
import { memoryState } from '../../src/plugins/state/memory/memory-state.js'
import { recordingLogger } from '../../src/testing/context.js'
import { githubHeaders } from '../fixtures/github.js'

const SECRET = 'route-secret-7c1e2f9a'
const AGENT = fileURLToPath(new URL('../fixtures/agents/leak-encoded.mjs', import.meta.url))

let gateway: Gateway | undefined
afterEach(async () => {
  await gateway?.close()
  gateway = undefined
})

/** Whether `text` still gives the secret away: verbatim, reversed, or decoded from hex or base64 at any offset. */
function leaks(text: string): string[] {
  const found: string[] = []
  const reversed = [...SECRET].reverse().join('')
  for (const piece of text.split(/\[redacted\]|[\s:]+/)) {
    if (piece.includes(SECRET)) found.push(`verbatim in ${piece}`)
    if (piece.includes(reversed)) found.push(`reversed in ${piece}`)
    if (decodeURIComponent(piece.replace(/%(?![0-9a-f]{2})/gi, '')).includes(SECRET)) found.push(`url-encoded in ${piece}`)
    for (let k = 0; k < 4; k++) {
      const tail = piece.slice(k)
      if (Buffer.from(tail, 'base64').toString('latin1').includes(SECRET)) found.push(`base64 in ${piece}`)
      if (Buffer.from(tail.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('latin1').includes(SECRET)) found.push(`base64url in ${piece}`)
      if (k < 2 && Buffer.from(tail.toLowerCase().replace(/[^0-9a-f]/g, '').slice(0, tail.length - (tail.length % 2)), 'hex').toString('latin1').includes(SECRET)) found.push(`hex in ${piece}`)
    }
  }
  return found
}

describe('an agent that encodes the secret it found', () => {
  it('posts and logs none of its encodings: base64 (standard, URL-safe, unpadded, inside longer text), hex, URL-encoded, reversed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-encoded-'))
    const configFile = join(dir, 'config.yaml')
    await writeFile(configFile, [
      'agent:',
      '  runner: command',
      `  command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(AGENT)}, ${JSON.stringify(configFile)}]`,
      // The redactor is what is tested: an agent that did read the config (the sandbox, which hides it, has its
      // own tests in agent-sandbox.system.test.ts).
      '  sandbox: off',
      'platforms:',
      '  webhook:',
      '    extra:',
      '      host: 127.0.0.1',
      '      routes:',
      `        posted: { secret: "${SECRET}", deliver: capture }`,
      `        logged: { secret: "${SECRET}", deliver: log }`,
    ].join('\n'), { mode: 0o600 })
    const answers: AgentAnswer[] = []
    const capture = asPlugin({ name: 'capture', deliveryTargets: [{ name: 'capture', deliver: async (a) => void answers.push(a) }] })
    const log = recordingLogger()
    const state = memoryState({ concurrency: 2, maxQueue: 10 })
    gateway = await createGateway(await loadConfig(configFile), [asPlugin({ name: 'test', logger: log, state }), capture], { baseDir: dir })
    const body = Buffer.from('{"action":"opened"}')
    for (const route of ['posted', 'logged']) {
      const res = await gateway.handle({ method: 'POST', path: `/webhooks/${route}`, headers: githubHeaders('pull_request', body, SECRET), body })
      expect(res.status).toBe(202)
    }
    await expect.poll(async () => (await state.jobs.list()).filter((j) => j.state === 'done').length, { timeout: 15_000 }).toBe(2)

    const delivered = answers[0]?.text ?? ''
    // Every form the agent wrote was there, each cut where the secret was.
    for (const name of ['verbatim', 'base64', 'base64_unpadded', 'base64url', 'hex', 'HEX', 'url', 'reversed', 'embedded_0', 'embedded_1', 'embedded_2']) {
      expect(delivered).toMatch(new RegExp(`^${name}: \\S*\\[redacted\\]`, 'm'))
    }
    expect(leaks(delivered)).toEqual([])
    // The same checks find the secret in every line of what the agent wrote (they are no weaker than the redactor).
    const raw = execFileSync(process.execPath, [AGENT, configFile], { encoding: 'utf8' })
    for (const line of raw.split('\n')) expect(leaks(line), line).not.toEqual([])
    expect(log.text()).toContain('file_base64: ')
    expect(leaks(log.text())).toEqual([])
  })
})
