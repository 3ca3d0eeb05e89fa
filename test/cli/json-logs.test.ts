/**
 * `log_format: json` / `LOG_FORMAT=json` as an operator runs it: every line `hookpilot serve` writes to stdout,
 * the startup line included, is one JSON object with `time`, `level` and `msg`, parsed here one by one.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { githubExample, githubHeaders } from '../fixtures/github.js'
import { startCli, type RunningCli } from '../fixtures/cli.js'

const SECRET = 'json-logs-secret-0123456789'
let running: RunningCli | undefined
afterEach(() => {
  running?.child.kill('SIGKILL')
  running = undefined
})

async function config(extra = ''): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hookpilot-json-'))
  const file = join(dir, 'config.yaml')
  await writeFile(file, [
    'state: { driver: memory }',
    'agent: { runner: echo }',
    extra,
    'platforms:',
    '  webhook:',
    '    extra:',
    '      host: 127.0.0.1',
    '      port: 0',
    `      secret: ${SECRET}`,
    '      routes:',
    '        pr: { events: [pull_request] }',
  ].join('\n'))
  return file
}

/** Every stdout line, parsed; a line that is not one JSON object fails the test. */
function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout.split('\n').filter((l) => l !== '').map((line) => {
    const value = JSON.parse(line) as unknown
    expect(typeof value === 'object' && value !== null && !Array.isArray(value), line).toBe(true)
    return value as Record<string, unknown>
  })
}

describe('JSON logs', () => {
  it('LOG_FORMAT=json: one object per line, startup line included, with time, level, msg and the fields as keys', async () => {
    running = startCli(['serve', '--config', await config()], { env: { LOG_FORMAT: 'json', LOG_LEVEL: 'debug' } })
    const [, port] = await running.waitFor(/Listening on 127\.0\.0\.1:(\d+)/)
    const body = Buffer.from(JSON.stringify(githubExample('pull_request', 'opened')))
    const res = await fetch(`http://127.0.0.1:${port}/webhooks/pr`, { method: 'POST', headers: githubHeaders('pull_request', body, SECRET, 'json-1'), body })
    expect(res.status).toBe(202)
    const push = Buffer.from('{"ref":"refs/heads/main"}')
    const ignored = await fetch(`http://127.0.0.1:${port}/webhooks/pr`, { method: 'POST', headers: githubHeaders('push', push, SECRET, 'json-2'), body: push })
    expect(ignored.status).toBe(200)
    await running.waitFor(/"msg":"agent answer"/)
    running.child.kill('SIGTERM')
    expect(await running.exited).toBe(0)

    const lines = jsonLines(running.stdout())
    for (const line of lines) {
      expect(typeof line['time']).toBe('string')
      expect(new Date(String(line['time'])).toISOString()).toBe(line['time'])
      expect(['debug', 'info', 'warn', 'error']).toContain(line['level'])
      expect(typeof line['msg']).toBe('string')
    }
    expect(lines[0]).toMatchObject({ level: 'info', msg: expect.stringMatching(/^\[webhook\] Listening on 127\.0\.0\.1:\d+ — routes: pr — state: memory — runner: echo$/) })
    expect(lines).toContainEqual(expect.objectContaining({ level: 'info', msg: 'accepted', route: 'pr', delivery: 'json-1', event: 'pull_request' }))
    // Counts are JSON numbers, so a log system can sum and compare them (issue 25, item 10); ids stay strings.
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'agent run finished', chars: expect.any(Number) }))
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'delivered', attempt: 1, job: expect.any(String) }))
    const quotedNumbers = lines.flatMap((line) => Object.entries(line).filter(([key, value]) => !['job', 'delivery', 'msg', 'time'].includes(key) && typeof value === 'string' && /^\d+$/.test(value)))
    expect(quotedNumbers).toEqual([])
    // LOG_LEVEL=debug reached the logger: ignored events are logged at debug only.
    expect(lines).toContainEqual(expect.objectContaining({ level: 'debug', msg: 'ignored event', delivery: 'json-2' }))
    expect(running.stdout()).not.toContain(SECRET)
  })

  it('log_format: json in the file works too, and LOG_FORMAT=text wins over it', async () => {
    const file = await config('log_format: json')
    running = startCli(['serve', '--config', file])
    await running.waitFor(/Listening on/)
    running.child.kill('SIGTERM')
    expect(await running.exited).toBe(0)
    expect(jsonLines(running.stdout())[0]?.['msg']).toMatch(/Listening on/)

    running = startCli(['serve', '--config', file], { env: { LOG_FORMAT: 'text' } })
    await running.waitFor(/Listening on/)
    running.child.kill('SIGTERM')
    expect(await running.exited).toBe(0)
    expect(running.stdout()).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z INFO {2}\[webhook\] Listening on/)
  })

  it('an unknown LOG_FORMAT is a configuration error naming log_format', async () => {
    running = startCli(['serve', '--config', await config()], { env: { LOG_FORMAT: 'xml' } })
    expect(await running.exited).toBe(1)
    expect(running.stderr()).toContain('log_format: expected text (for people) or json')
  })
})
