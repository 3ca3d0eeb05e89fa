/**
 * The main use case (an agent reviews a pull request), end to end with real parts: a signed `pull_request`
 * webhook over a real socket, the openai runner talking to a local fake model that fetches the diff with (a fake)
 * gh, and the review posted as one `gh pr comment`. The configuration is the route
 * docs/guides/github-pr-review.md recommends, less its `concurrency` and sticky comment (the fake gh here cannot
 * edit comments): reviews.system.test.ts runs those with the real gh against a fake GitHub API.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { createGateway, type Gateway, type HookpilotConfigInput } from '../../src/index.js'
import { asPlugin } from '../fixtures/gateway.js'
import { recordingLogger } from '../../src/testing/context.js'
import { installFakeGh, type FakeGh } from '../fixtures/fake-gh.js'
import { eventText, fakeModel, filledTask, lastToolResult, type FakeModel } from '../fixtures/fake-model.js'
import { githubHeaders, githubPayload } from '../fixtures/github.js'

const SECRET = 'e2e-webhook-secret-0123456789'
const PROMPT = `Review pull request #{number} in {repository.full_name}: "{pull_request.title}" (action: {action}).
If the action is closed or labeled, or anything other than opened, reopened, synchronize or ready_for_review,
answer exactly SKIP and nothing else.
Otherwise fetch the diff with: gh pr diff {number} --repo {repository.full_name}
Review it for bugs, risky changes and missing tests. Be brief; answer in Markdown.`

let gh: FakeGh
let model: FakeModel
// The SQLite state file of this file's gateways, in a folder of their own: not the repository's .hookpilot/,
// which another test file running beside this one (or an earlier run's leftover jobs) could share.
let stateDir = ''
const savedPath = process.env['PATH']
const savedKey = process.env['HOOKPILOT_E2E_OPENAI_KEY']

beforeAll(async () => {
  stateDir = mkdtempSync(join(tmpdir(), 'hookpilot-e2e-'))
  gh = installFakeGh()
  gh.setDiff('diff --git a/README.md b/README.md\n@@ -1 +1 @@\n-Hello\n+Hello World\n')
  // As on a server: gh found on PATH, by the runner's command and by the comment target alike.
  process.env['PATH'] = `${gh.dir}${delimiter}${savedPath ?? ''}`
  process.env['HOOKPILOT_E2E_OPENAI_KEY'] = 'sk-e2e-0123456789abcdefghij'
  // The fake model: SKIP for actions the prompt says to skip; else ask for the diff, then review what it got.
  // It reads the task as a model would: the operator's template with the event's values put in.
  model = await fakeModel((call) => {
    const event = filledTask(call)
    if (!/\(action: (opened|reopened|synchronize|ready_for_review)\)/.test(event)) return { content: 'SKIP' }
    const diff = lastToolResult(call)
    if (diff === undefined) {
      const command = /fetch the diff with: (.+)$/m.exec(event)?.[1] ?? 'no command in the prompt'
      return { command: command.split(' ') }
    }
    return { content: `## Review\n\nThe diff changes ${diff.split('\n').filter((l) => l.startsWith('+') && !l.startsWith('+++')).length} line(s). LGTM.` }
  })
})

afterAll(async () => {
  process.env['PATH'] = savedPath
  if (savedKey === undefined) delete process.env['HOOKPILOT_E2E_OPENAI_KEY']
  else process.env['HOOKPILOT_E2E_OPENAI_KEY'] = savedKey
  await model.close()
  gh.remove()
  rmSync(stateDir, { recursive: true, force: true })
})

describe('GitHub pull request review, end to end', () => {
  const log = recordingLogger()
  let gateway: Gateway | undefined
  afterEach(async () => {
    await gateway?.close()
    gateway = undefined
    model.calls.length = 0
    log.lines.length = 0
  })

  const config: HookpilotConfigInput = {
    agent: {
      runner: 'openai',
      base_url: '', // filled in per test: the fake model's port
      api_key: '${HOOKPILOT_E2E_OPENAI_KEY}',
      model: 'gpt-test',
      max_steps: 4,
      timeout_seconds: 30,
      allow_commands: ['gh pr diff', 'gh pr view'],
      // The stand-in gh lives in a temp folder and records its calls there, which a sandbox's private /tmp and
      // read-only root would hide (a real gh is in /usr/bin); the sandbox has its own tests.
      sandbox: 'off',
    },
    platforms: {
      webhook: {
        extra: {
          host: '127.0.0.1',
          routes: {
            'github-pr-review': {
              secret: SECRET,
              events: ['pull_request'],
              prompt: PROMPT,
              silent_outputs: ['SKIP'],
              deliver: 'github_comment',
              deliver_extra: { repo: '{repository.full_name}', pr_number: '{number}' },
            },
          },
        },
      },
    },
  }

  let url = ''
  beforeEach(async () => {
    gateway = await createGateway({ ...config, agent: { ...config.agent, base_url: model.url } }, [asPlugin({ name: 'test-log', logger: log })], { baseDir: stateDir })
    url = (await gateway.listen({ port: 0 })).url
  })

  async function send(action: string, deliveryId: string = randomUUID()): Promise<{ status: number; body: unknown }> {
    const body = githubPayload('pull_request', action)
    const res = await fetch(`${url}/webhooks/github-pr-review`, { method: 'POST', headers: githubHeaders('pull_request', body, SECRET, deliveryId), body })
    return { status: res.status, body: await res.json() }
  }
  const comments = () => gh.calls().filter((c) => c.argv[1] === 'comment')

  it('opened: the agent fetches the diff, reviews it, and exactly one comment is posted', async () => {
    const before = gh.calls().length
    const deliveryId = randomUUID()
    expect(await send('opened', deliveryId)).toEqual({
      status: 202, body: { status: 'accepted', route: 'github-pr-review', event: 'pull_request', delivery_id: deliveryId },
    })
    await vi.waitFor(() => expect(log.lines.some((l) => l.message === 'delivered')).toBe(true), { timeout: 15_000 })

    const review = '## Review\n\nThe diff changes 1 line(s). LGTM.'
    expect(gh.calls().slice(before)).toEqual([
      { argv: ['pr', 'diff', '2', '--repo', 'Codertocat/Hello-World'], stdin: '' },
      { argv: ['pr', 'comment', '2', '--repo', 'Codertocat/Hello-World', '--body-file', '-'], stdin: review },
    ])
    expect(model.calls).toHaveLength(2)
    expect(model.calls[0]?.headers['authorization']).toBe('Bearer sk-e2e-0123456789abcdefghij')
    expect(eventText(model.calls[0])).toContain('"Update the README with new information."')
    // The operator's template is the task in the system message; the payload's text stays in the user message.
    const system = model.calls[0]?.body.messages[0]?.content ?? ''
    expect(system).toContain('{pull_request.title}')
    expect(system).not.toContain('Update the README with new information.')
    expect(lastToolResult(model.calls[1])).toBe('diff --git a/README.md b/README.md\n@@ -1 +1 @@\n-Hello\n+Hello World\n')

    // GitHub's "Redeliver" reuses the delivery id: answered as a duplicate, and nothing is posted again.
    expect(await send('opened', deliveryId)).toEqual({ status: 200, body: { status: 'duplicate', delivery_id: deliveryId } })
    expect(comments().filter((c) => c.stdin === review)).toHaveLength(1)
  })

  it.each(['closed', 'labeled'])('%s: the agent answers SKIP, silent_outputs keeps it quiet, and gh is not run', async (action) => {
    const before = gh.calls().length
    expect((await send(action)).status).toBe(202)
    await vi.waitFor(() => expect(log.lines.some((l) => l.message === 'silent output: nothing delivered')).toBe(true), { timeout: 15_000 })
    expect(model.calls).toHaveLength(1)
    expect(gh.calls().slice(before)).toEqual([])
  })
})
