/**
 * Route names `__proto__`, `constructor` and `prototype` (issue 13.6): they used to vanish (valibot's records
 * drop them, plain objects find them on their prototype): `subscribe constructor` exited 0 and the route
 * answered 404, and config.yaml lost them without an error. Now each is refused with a message.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { ConfigError, createGateway, loadConfig, parseConfig } from '../../src/index.js'
import { cliTestSetup, hookpilot, liveGateway, postSigned, project } from './helpers.js'

const RESERVED = ['__proto__', 'constructor', 'prototype'] as const
const cleanup = cliTestSetup()

describe('reserved route names', () => {
  it('config.yaml: each is an error at its path, and the other routes are not lost', async () => {
    const { config, cleanup: clean } = await project()
    cleanup(clean)
    const yaml = ['platforms:', '  webhook:', '    extra:', '      secret: s3cret-value', '      routes:', ...RESERVED.map((n) => `        ${n}: {}`), '        ok: {}'].join('\n')
    await writeFile(config, yaml)
    const err = await loadConfig(config, { env: {} }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as ConfigError).issues).toEqual(RESERVED.map((name) => ({
      path: `platforms.webhook.extra.routes.${name}`,
      message: `"${name}" cannot name a route: JavaScript objects reserve it; pick another name`,
    })))
  })

  it('a config given as an object is checked the same way', () => {
    const routes = JSON.parse('{"__proto__": {}, "constructor": {}, "fine": {}}') as Record<string, object>
    expect(() => parseConfig({ platforms: { webhook: { extra: { secret: 's3cret-value', routes } } } }, { env: {} })).toThrow(/routes\.__proto__: "__proto__" cannot name a route/)
  })

  it('a route delivering to "constructor" is an unknown target, not Object\'s constructor', async () => {
    const config = { state: { driver: 'memory' as const }, platforms: { webhook: { extra: { secret: 's3cret-value', routes: { pr: { deliver: 'constructor' } } } } } }
    const err = await createGateway(config).catch((e: unknown) => e)
    expect((err as ConfigError).issues).toEqual([{ path: 'platforms.webhook.extra.routes.pr.deliver', message: expect.stringMatching(/^route "pr" delivers to "constructor", which no plugin provides/) }])
  })

  it('hookpilot subscribe refuses each, exit 2, writing nothing', async () => {
    const { dir, file, cleanup: clean } = await project()
    cleanup(clean)
    for (const name of RESERVED) {
      const res = await hookpilot(['subscribe', name], dir)
      expect(res.code, res.stdout).toBe(2)
      expect(res.stderr).toContain(`"${name}" is not a valid name: a route cannot be named __proto__, constructor or prototype`)
      expect(res.stdout).not.toContain('Secret')
    }
    await expect(readFile(file)).rejects.toMatchObject({ code: 'ENOENT' })
    expect((await hookpilot(['constructor'], dir)).code).toBe(2)
  })

  it('a hand-edited subscriptions file: each is skipped with a warning naming it; the others are served', async () => {
    const { dir, config, file, cleanup: clean } = await project()
    cleanup(clean)
    const entries = [...RESERVED, 'fine'].map((name) => `${JSON.stringify(name)}: {"secret": "sub-secret-1234"}`).join(', ')
    await writeFile(file, `{"version": 1, "subscriptions": {${entries}}}`, { mode: 0o600 })
    const live = await liveGateway(config, dir)
    cleanup(() => live.gateway.close())
    for (const name of RESERVED) {
      expect(live.log.lines).toContainEqual(expect.objectContaining({ level: 'warn', message: expect.stringContaining(`subscription "${name}" skipped: a route cannot be named`) }))
      expect(await postSigned(live.url, name, 'sub-secret-1234')).toBe(404)
    }
    expect(await postSigned(live.url, 'fine', 'sub-secret-1234')).toBe(202)
    // `hookpilot list` shows them as unusable rather than dropping them.
    const list = await hookpilot(['list'], dir)
    expect(list.stdout + list.stderr).toContain('constructor')
  })
})
