import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { HeadBuffer, TailBuffer } from '../../src/core/agents/output-buffer.js'
import { runProcess } from '../../src/core/agents/run-process.js'
import { fixtureAgent, isAlive, killIfAlive, waitForDeath } from '../fixtures/process.js'

const pidIn = (stdout: string): number => Number(stdout.trim().split('\n')[0])

describe('runProcess', () => {
  it('writes the input to stdin and collects stdout and the exit code', async () => {
    const result = await runProcess(fixtureAgent('upper'), { input: 'héllo wörld', timeoutMs: 10_000 })
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout: 'HÉLLO WÖRLD\n',
      stderr: '',
      timedOut: false,
      aborted: false,
      truncated: false,
    })
  })

  it('passes arguments verbatim, never through a shell, with the given cwd and env', async () => {
    const hostile = ['$(touch /tmp/hookpilot-pwned)', '; rm -rf /', '"quoted" \'single\'', '*', '$HOME', '`id`', '']
    const result = await runProcess(fixtureAgent('args', ...hostile), {
      cwd: '/tmp',
      env: { PATH: process.env['PATH'], HOOKPILOT_TEST_MARKER: 'from-env' },
    })
    expect(JSON.parse(result.stdout)).toEqual({ argv: hostile, cwd: '/tmp', marker: 'from-env' })
  })

  it('kills the whole process tree on timeout, grandchild included', async () => {
    const started = Date.now()
    // Long enough for the program to start under its watchdog and print its grandchild's pid on a busy machine.
    const result = await runProcess(fixtureAgent('hang'), { timeoutMs: 1_500 })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(result).toMatchObject({ timedOut: true, aborted: false, code: null, signal: 'SIGTERM' })
    const grandchild = pidIn(result.stdout)
    expect(grandchild).toBeGreaterThan(0)
    expect(await waitForDeath(grandchild)).toBe(true)
  })

  it('escalates to SIGKILL after the grace period when SIGTERM is ignored', async () => {
    // Long enough for node to start and install its SIGTERM handler even on a loaded machine.
    const result = await runProcess(fixtureAgent('hang', 'ignore-term'), { timeoutMs: 1500, killGraceMs: 200 })
    expect(result).toMatchObject({ timedOut: true, code: null, signal: 'SIGKILL' })
    expect(await waitForDeath(pidIn(result.stdout))).toBe(true)
  })

  it('kills the tree when the signal aborts, and does not start when it already has', async () => {
    const controller = new AbortController()
    const dir = mkdtempSync(join(tmpdir(), 'hookpilot-run-'))
    const pidFile = join(dir, 'hang.pid')
    // Aborted once the program runs (it wrote its grandchild's pid), however long starting took.
    const poll = setInterval(() => existsSync(pidFile) && controller.abort(), 20)
    const result = await runProcess(fixtureAgent('hang'), { signal: controller.signal, env: { ...process.env, HOOKPILOT_PID_FILE: pidFile } })
    clearInterval(poll)
    rmSync(dir, { recursive: true, force: true })
    expect(result).toMatchObject({ aborted: true, timedOut: false, code: null })
    expect(await waitForDeath(pidIn(result.stdout))).toBe(true)

    const again = await runProcess(fixtureAgent('upper'), { input: 'x', signal: controller.signal })
    expect(again).toMatchObject({ aborted: true, code: null, stdout: '' })
  })

  it('stops a program that passes the output cap, keeping exactly the cap', async () => {
    const result = await runProcess(fixtureAgent('flood'), { maxOutputBytes: 100_000, timeoutMs: 10_000 })
    expect(result).toMatchObject({ truncated: true, timedOut: false, code: null })
    expect(result.stdout).toHaveLength(100_000)
  })

  it('keeps the end of a long stderr, and the exit code', async () => {
    const result = await runProcess(fixtureAgent('fail', '3', '200000'), { maxStderrBytes: 1_024 })
    expect(result.code).toBe(3)
    expect(result.stderr).toHaveLength(1_024)
    expect(result.stderr.endsWith('error: the model refused\n')).toBe(true)
    expect(result.stderr).not.toContain('START-OF-STDERR')
  })

  it('reports a missing program as a value', async () => {
    const result = await runProcess(['hookpilot-no-such-program-4f1c'], { input: 'x' })
    expect(result.error?.code).toBe('ENOENT')
    expect(result).toMatchObject({ code: null, stdout: '', timedOut: false })
    expect((await runProcess([])).error?.code).toBe('ERR_INVALID_ARG_VALUE')
  })

  it('survives EPIPE when the program exits without reading a large input', async () => {
    const input = 'x'.repeat(8 * 1024 * 1024)
    const result = await runProcess(fixtureAgent('deaf'), { input, timeoutMs: 10_000 })
    expect(result).toMatchObject({ code: 0, stdout: 'answered without reading\n' })
  })

  it('kills what the program left running in its group when it exits', async () => {
    const result = await runProcess(fixtureAgent('leave-behind', 'in-group'), { timeoutMs: 10_000 })
    expect(result.code).toBe(0)
    expect(await waitForDeath(pidIn(result.stdout))).toBe(true)
  })

  it('does not wait forever for a grandchild that left the group but holds stdout open', async () => {
    const started = Date.now()
    const result = await runProcess(fixtureAgent('leave-behind'), { killGraceMs: 300, timeoutMs: 10_000 })
    const escaped = pidIn(result.stdout)
    try {
      expect(result).toMatchObject({ code: 0, timedOut: false })
      expect(Date.now() - started).toBeLessThan(3_000)
      expect(isAlive(escaped)).toBe(true) // out of our group: the grace bound, not a kill, ended the wait
    } finally {
      killIfAlive(escaped)
    }
  })
})

describe('output buffers', () => {
  const e = Buffer.from('é', 'utf8') // two bytes

  it('decode a character split across chunks', () => {
    const head = new HeadBuffer(10)
    head.push(e.subarray(0, 1))
    head.push(e.subarray(1))
    expect(head.text()).toBe('é')
    const tail = new TailBuffer(10)
    tail.push(e.subarray(0, 1))
    tail.push(e.subarray(1))
    expect(tail.text()).toBe('é')
  })

  it('keep the head up to the cap, or the tail', () => {
    const head = new HeadBuffer(5)
    expect(head.push(Buffer.from('abc'))).toBe(true)
    expect(head.push(Buffer.from('defg'))).toBe(false)
    expect(head.push(Buffer.from('h'))).toBe(false)
    expect([head.text(), head.overflowed]).toEqual(['abcde', true])
    const tail = new TailBuffer(5)
    for (const part of ['abc', 'defg', 'h']) tail.push(Buffer.from(part))
    expect(tail.text()).toBe('defgh')
  })
})
