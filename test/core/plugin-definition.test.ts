/**
 * What `definePlugin` refuses at definition time (a secret path that names no option: a typo there would
 * silently turn that secret's redaction off), and errors recognised by their brand when they cross a plugin
 * boundary (a plugin built against another copy of hookpilot throws that copy's classes).
 */
import { describe, expect, it } from 'vitest'
import { ConfigError, createGateway, DeliveryError, definePlugin, GatewayError, v } from '../../src/index.js'
import { gatherIssues } from '../../src/core/config/gather-issues.js'
import { githubHeaders } from '../fixtures/github.js'

/** A second copy of the errors module, as a plugin with its own copy of the package would bring. */
// The query makes it another module to the loader; a variable, as the compiler resolves no query string.
const anotherCopy = '../../src/core/errors.js?another-copy'
const copy = (await import(anotherCopy)) as typeof import('../../src/core/errors.js')

const options = v.object({
  file: v.string(),
  token: v.optional(v.string()),
  auth: v.optional(v.object({ user: v.string(), password: v.string() })),
  headers: v.optional(v.record(v.string(), v.string())),
})

describe('definePlugin: secrets', () => {
  it('takes keys and dotted paths of its schema, and keys under a record', () => {
    const plugin = definePlugin({ name: 'ok', options, secrets: ['token', 'auth.password', 'headers.authorization'], setup: () => ({ name: 'ok' }) })
    expect(plugin.secrets).toEqual(['token', 'auth.password', 'headers.authorization'])
  })

  it('refuses a secret that names no option, naming the plugin and the path, with the closest key', () => {
    // @ts-expect-error: the compiler refuses the typo too
    const typo = () => definePlugin({ name: 'audit', options, secrets: ['tokn'], setup: () => ({ name: 'audit' }) })
    expect(typo).toThrow('plugin "audit": secrets lists "tokn", which names no option of its schema; did you mean "token"?')
    expect(typo).toThrow(expect.objectContaining({ code: 'ERR_PLUGIN' }))
  })

  it('follows nested options: the suggestion is a full path, and a path inside a plain option is refused', () => {
    // @ts-expect-error: not a key of auth
    expect(() => definePlugin({ name: 'a', options, secrets: ['auth.pasword'], setup: () => ({ name: 'a' }) }))
      .toThrow('secrets lists "auth.pasword", which names no option of its schema; did you mean "auth.password"?')
    // @ts-expect-error: token is a string, not a group of options
    expect(() => definePlugin({ name: 'a', options, secrets: ['token.value'], setup: () => ({ name: 'a' }) }))
      .toThrow('secrets lists "token.value", which names no option of its schema; "token" has no options inside')
    // @ts-expect-error: nothing close
    expect(() => definePlugin({ name: 'a', options, secrets: ['zzz'], setup: () => ({ name: 'a' }) }))
      .toThrow('the options there are: file, token, auth, headers')
  })

  it('refuses secrets on a plugin that has no options schema', () => {
    expect(() => definePlugin({ name: 'bare', secrets: ['token'], setup: () => ({ name: 'bare' }) }))
      .toThrow('plugin "bare": secrets lists "token", but the plugin has no options schema')
  })
})

describe('one plugin form', () => {
  const config = { platforms: { webhook: { extra: { routes: { pr: { secret: 'route-secret-0123' } } } } }, state: { driver: 'memory' } } as const

  it('createGateway refuses a plain plugin object, saying how to wrap it in definePlugin', async () => {
    const plain = { name: 'quiet', eventFilters: [] }
    const failed = await createGateway(config, [plain as never]).catch((err: unknown) => err)
    expect(GatewayError.is(failed) && [failed.code, failed.message]).toEqual([
      'ERR_PLUGIN', 'plugin "quiet" is not a plugin definition; wrap it: definePlugin({ name: \'quiet\', setup: () => plugin })',
    ])
  })

  it('what setup returns fills the slots: a filter of a definition with no options refuses events', async () => {
    const refuseAll = definePlugin({ name: 'refuse-all', setup: () => ({ name: 'refuse-all', eventFilters: [{ name: 'refuse-all', accepts: () => false }] }) })
    const gateway = await createGateway(config, [refuseAll])
    try {
      const body = Buffer.from('{}')
      const res = await gateway.handle({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, 'route-secret-0123'), body })
      expect(JSON.parse(res.body)).toMatchObject({ status: 'ignored', reason: 'the event filter "refuse-all" declined it' })
    } finally {
      await gateway.close()
    }
  })
})

describe('brand checks across copies of the package', () => {
  const foreign = new copy.ConfigError([{ path: 'platforms.teams.webhook_url', message: 'expected https://' }])

  it('ConfigError.is recognises another copy\'s ConfigError, which instanceof does not', () => {
    expect(foreign instanceof ConfigError).toBe(false)
    expect(ConfigError.is(foreign)).toBe(true)
    expect(ConfigError.is(new ConfigError([]))).toBe(true)
    expect(ConfigError.is(new GatewayError('ERR_CONFIG', 'cannot read the file'))).toBe(false)
    expect(ConfigError.is(new copy.DeliveryError('x', 'down'))).toBe(false)
    expect(ConfigError.is(Object.assign(new Error('x'), { code: 'ERR_CONFIG', issues: [] }))).toBe(false)
    expect(DeliveryError.is(new copy.DeliveryError('x', 'down', { retryable: true }))).toBe(true)
  })

  it('a ConfigError a plugin\'s setup throws keeps its own paths, from any copy', async () => {
    const teams = definePlugin({
      name: 'teams',
      section: 'platforms.teams',
      options: v.object({ webhook_url: v.optional(v.string()) }),
      setup: () => {
        throw foreign
      },
    })
    const config = { platforms: { webhook: { extra: { routes: { pr: { secret: 'route-secret-0123' } } } }, teams: {} }, state: { driver: 'memory' } }
    const failed = await createGateway(config, [teams]).catch((err: unknown) => err)
    expect(ConfigError.is(failed) && failed.issues).toEqual([{ path: 'platforms.teams.webhook_url', message: 'expected https://' }])
  })

  it('gathering issues takes another copy\'s ConfigError and rethrows anything else', () => {
    const issues: { path: string; message: string }[] = []
    expect(gatherIssues(() => { throw foreign }, issues)).toBeUndefined()
    expect(issues).toEqual([{ path: 'platforms.teams.webhook_url', message: 'expected https://' }])
    expect(() => gatherIssues(() => { throw new copy.GatewayError('ERR_STATE', 'down') }, issues)).toThrow('down')
  })
})
