/**
 * The subscriptions file on disk: atomic 0600 writes, a lock that keeps concurrent updates, a broken file
 * refused rather than overwritten, and entry checks whose messages never quote a secret.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../src/core/plugin-api/load-config.js'
import {
  parseEntry, parseSubscriptionsText, readSubscriptions, resolveSubscriptions, subscriptionsPath, updateSubscriptions,
  withFileLock, writeSubscriptions,
} from '../../src/core/routes/subscriptions/index.js'
import { targetMap } from '../../src/core/routes/route-problem.js'
import { modeOf } from './helpers.js'

let dir: string
let file: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'hookpilot-store-'))
  file = join(dir, '.subscriptions.json')
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const add = (name: string) => updateSubscriptions(file, (f) => ({ file: { ...f, subscriptions: { ...f.subscriptions, [name]: { secret: `s-${name}` } } }, result: name }))

describe('writing', () => {
  it('writes mode 0600 through a temporary file that does not stay behind', async () => {
    await writeSubscriptions(file, { version: 1, subscriptions: { a: { secret: 'x' } } })
    expect(modeOf(file)).toBe(0o600)
    expect(await readdir(dir)).toEqual(['.subscriptions.json'])
    expect(await readSubscriptions(file)).toEqual({ status: 'ok', file: { version: 1, subscriptions: { a: { secret: 'x' } } } })
  })

  it('keeps 0600 when it replaces a file that was readable by others', async () => {
    await writeFile(file, '{"subscriptions": {}}', { mode: 0o644 })
    await add('a')
    expect(modeOf(file)).toBe(0o600)
  })

  it('loses no entry when 40 updates run at once, and leaves no lock file', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `n${i}`)
    await Promise.all(names.map(add))
    const read = await readSubscriptions(file)
    expect(read.status === 'ok' && Object.keys(read.file.subscriptions).sort()).toEqual([...names].sort())
    expect(await readdir(dir)).toEqual(['.subscriptions.json'])
  })

  it('refuses to update a broken file and leaves it as it was', async () => {
    await writeFile(file, '{"subscriptions": ')
    await expect(add('a')).rejects.toThrow(/is invalid \(not valid JSON.*fix or delete it first/)
    expect(await readFile(file, 'utf8')).toBe('{"subscriptions": ')
  })
})

describe('the lock', () => {
  it('breaks a lock whose owner died', async () => {
    const dead = spawn(process.execPath, ['-e', ''])
    const pid = dead.pid as number
    await new Promise((resolve) => dead.on('exit', resolve))
    await writeFile(`${file}.lock`, `${pid}\nabc\n`)
    await expect(withFileLock(`${file}.lock`, async () => 'got it', { timeoutMs: 2_000 })).resolves.toBe('got it')
  })

  it('waits for a live owner and gives up with a message naming the lock file', async () => {
    await writeFile(`${file}.lock`, `${process.pid}\nother\n`)
    await expect(withFileLock(`${file}.lock`, async () => 'never', { timeoutMs: 200 })).rejects.toThrow(/has held .*\.subscriptions\.json\.lock.*delete that file/)
    expect(await readFile(`${file}.lock`, 'utf8')).toBe(`${process.pid}\nother\n`)
  })
})

describe('parsing', () => {
  it.each([
    ['', /empty/],
    ['{"subscriptions": ', /not valid JSON/],
    ['[]', /expected an object \{"version": 1/],
    ['null', /expected an object/],
    ['{"version": 2, "subscriptions": {}}', /version 1 is the only one/],
    ['{"version": 1}', /subscriptions/],
    ['{"version": 1, "subscriptions": {}, "extra": 1}', /extra: unknown key/],
  ])('rejects %j with a reason', (text, reason) => {
    const result = parseSubscriptionsText(text)
    expect(result.ok).toBe(false)
    expect(!result.ok && result.reason).toMatch(reason)
  })

  it.each([
    ['an entry that is a bare string', 'leaked-secret-value'],
    ['an entry that is a list', ['leaked-secret-value']],
    ['a secret of the wrong type', { secret: { value: 'leaked-secret-value' } }],
    ['a list with a non-string', { secret: ['leaked-secret-value', 1] }],
  ])('describes %s without quoting the secret', (_case, raw) => {
    const result = parseEntry('name', raw)
    expect(result.ok).toBe(false)
    expect(!result.ok && result.reason).not.toContain('leaked-secret-value')
  })
})

describe('locating and resolving', () => {
  const config = parseConfig({ platforms: { webhook: { extra: { host: '127.0.0.1', routes: { fixed: { secret: 'f' } } } } } })

  it('puts the file beside the config, or where subscriptions_file says (relative to the config folder)', () => {
    expect(subscriptionsPath(config, '/etc/hp')).toBe('/etc/hp/.subscriptions.json')
    expect(subscriptionsPath(config, undefined)).toBeUndefined()
    const custom = parseConfig({ platforms: { webhook: { extra: { subscriptions_file: 'state/subs.json' } } } })
    expect(subscriptionsPath(custom, '/etc/hp')).toBe('/etc/hp/state/subs.json')
  })

  it('resolves good entries and names the skipped ones; INSECURE_NO_AUTH is fine on a loopback bind', () => {
    const targets = targetMap([{ name: 'log', deliver: async () => undefined }])
    const { routes, skipped } = resolveSubscriptions(
      { version: 1, subscriptions: { ok: { secret: 's', events: ['push'] }, dev: { secret: 'INSECURE_NO_AUTH' }, fixed: { secret: 'x' }, nosecret: {} } },
      { config, targets, staticNames: new Set(['fixed']) },
    )
    expect(routes.map((r) => [r.name, r.source])).toEqual([['ok', 'dynamic'], ['dev', 'dynamic']])
    expect(skipped.map((s) => s.name)).toEqual(['fixed', 'nosecret'])
  })
})
