/**
 * Concurrent `hookpilot subscribe` processes: each read-change-write holds the lock, so none loses another's entry.
 */
import { readdir, readFile, rm } from 'node:fs/promises'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { runCli } from '../fixtures/cli.js'
import { builtCli, modeOf, project } from './helpers.js'

/** A real `hookpilot` process in `cwd`: the lock under test is between processes. */
const hookpilot = (args: readonly string[], cwd: string) => runCli(args, { cwd })

let p: Awaited<ReturnType<typeof project>>
beforeAll(async () => {
  await builtCli()
  p = await project()
}, 180_000)
afterAll(async () => {
  await p.cleanup()
})

it('10 subscribe processes at once all land in the file, which stays 0600 with no leftovers', async () => {
  const names = Array.from({ length: 10 }, (_, i) => `hook-${i}`)
  const results = await Promise.all(names.map((name) => hookpilot(['subscribe', name, '--events', 'pull_request'], p.dir)))
  for (const res of results) expect(res.code, res.stderr).toBe(0)
  const saved = JSON.parse(await readFile(p.file, 'utf8'))
  expect(Object.keys(saved.subscriptions).sort()).toEqual([...names].sort())
  const secrets = new Set(Object.values(saved.subscriptions).map((s) => (s as { secret: string }).secret))
  expect(secrets.size).toBe(10)
  expect(modeOf(p.file)).toBe(0o600)
  expect((await readdir(p.dir)).sort()).toEqual(['.subscriptions.json', 'config.yaml'])

  const removed = await Promise.all(names.slice(0, 5).map((name) => hookpilot(['remove', name], p.dir)))
  for (const res of removed) expect(res.code, res.stderr).toBe(0)
  expect(Object.keys(JSON.parse(await readFile(p.file, 'utf8')).subscriptions).sort()).toEqual(names.slice(5).sort())
  await rm(p.file)
}, 60_000)
