/**
 * `hookpilot dev gitlab push` against a running fake GitLab, and the fake's own push endpoint: a merge request's
 * head moves to a new diff version, as a push does; a bad merge request, SHA or address is told what to change.
 */
import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, expect, it } from 'vitest'
import type { CliIO } from '../../src/cli/io.js'
import { main } from '../../src/cli/run.js'
import { startFakeGitlab, type FakeGitlab } from '../../src/dev/gitlab/server.js'

let gitlab: FakeGitlab
beforeAll(async () => {
  gitlab = await startFakeGitlab()
})
afterAll(() => gitlab.close())

const run = async (...args: string[]) => {
  const stdout = new PassThrough()
  const stderr = new PassThrough()
  let out = ''
  let err = ''
  stdout.on('data', (d: Buffer) => (out += d.toString()))
  stderr.on('data', (d: Buffer) => (err += d.toString()))
  const io: CliIO = { stdout, stderr, env: {}, cwd: process.cwd() }
  const code = await main(['dev', 'gitlab', ...args], io)
  return { code, stdout: out, stderr: err }
}

it('pushes a head to a running fake: the merge request has a new diff version at it', async () => {
  const head = 'abcdef0123456789abcdef0123456789abcdef01'
  expect(await run('push', 'group/project!3', head, '--url', gitlab.origin)).toEqual({ code: 0, stdout: `group/project!3 is at ${head}\n`, stderr: '' })
  const mr = await (await fetch(`${gitlab.apiUrl}/projects/group%2Fproject/merge_requests/3`, { headers: { 'private-token': gitlab.token } })).json() as { sha: string, diff_refs: { head_sha: string } }
  expect(mr).toMatchObject({ sha: head, diff_refs: { head_sha: head } })
  expect(gitlab.mergeRequest('group/project', 3).versions).toHaveLength(1)
})

it('says what to change: a merge request without !, a SHA that is not one, no fake at the address', async () => {
  expect(await run('push', 'group/project#3', 'abcdef0')).toMatchObject({ code: 2, stderr: expect.stringContaining('"group/project#3" is not a merge request: write GROUP/PROJECT!IID') })
  expect(await run('push', 'group/project!3', 'HEAD~1')).toMatchObject({ code: 2, stderr: expect.stringContaining('push takes a commit SHA') })
  expect(await run('push', 'group/project!3', 'abcdef0', '--url', 'http://127.0.0.1:1')).toMatchObject({ code: 2, stderr: expect.stringContaining('no fake GitLab answers at http://127.0.0.1:1') })
  expect(await run('pull')).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown action "pull"') })
})
