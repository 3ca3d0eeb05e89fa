/**
 * `setUpPlugin` of `hookpilot/testing` sets a plugin up as the gateway does: its options validated by the
 * gateway's own function (the same messages, unknown keys with a "did you mean", the schema's defaults), and a
 * context whose child environment holds none of the plugin's secret options.
 */
import { describe, expect, it } from 'vitest'
import { ConfigError, definePlugin, parseConfig, v, type SetupContext } from '../../src/index.js'
import { setUpPlugin } from '../../src/testing/index.js'

const TOKEN = 'teams-token-0123456789'

/** A plugin that remembers what its setup got. */
function teams() {
  const seen: { options?: unknown; ctx?: SetupContext } = {}
  const plugin = definePlugin({
    name: 'teams',
    section: 'platforms.teams',
    options: v.object({
      url: v.pipe(v.string('expected a string'), v.startsWith('https://', 'expected an https:// URL')),
      token: v.pipe(v.string('expected a string'), v.minLength(16, 'at least 16 characters')),
      timeout_seconds: v.optional(v.number(), 30),
    }),
    secrets: ['token'],
    setup(options, ctx) {
      Object.assign(seen, { options, ctx })
      return { name: 'teams' }
    },
  })
  return { plugin, seen }
}

describe('setUpPlugin', () => {
  it('fills in the schema\'s defaults, as the gateway does', async () => {
    const { plugin, seen } = teams()
    await setUpPlugin(plugin, { url: 'https://teams.example', token: TOKEN })
    expect(seen.options).toEqual({ url: 'https://teams.example', token: TOKEN, timeout_seconds: 30 })
  })

  it('refuses options with the gateway\'s own messages, every problem at once, paths relative to the options', async () => {
    const { plugin, seen } = teams()
    const given = { url: 'http://teams.example', token: 'short', timout_seconds: 5 }
    const failed = await setUpPlugin(plugin, given).catch((err: unknown) => err)
    expect(ConfigError.is(failed)).toBe(true)
    const issues = (failed as ConfigError).issues
    expect(issues).toEqual([
      { path: 'timout_seconds', message: expect.stringContaining('did you mean "timeout_seconds"?') },
      { path: 'url', message: 'expected an https:// URL' },
      { path: 'token', message: 'at least 16 characters' },
    ])
    expect((failed as ConfigError).message).toContain('the options of plugin "teams"')
    expect(seen.options).toBeUndefined()
    // The same options in config.yaml: the gateway says the same things, under the plugin's section.
    const gateway = (() => {
      try {
        parseConfig({ platforms: { teams: given } } as never, { plugins: [plugin], env: {} })
      } catch (err) {
        return err
      }
    })()
    expect(ConfigError.is(gateway) && gateway.issues).toEqual(issues.map((i) => ({ ...i, path: `platforms.teams.${i.path}` })))
  })

  it('refuses options for a plugin that takes none', async () => {
    const bare = definePlugin({ name: 'bare', setup: () => ({ name: 'bare' }) })
    await expect(setUpPlugin(bare, { anything: 1 })).rejects.toThrow('plugin "bare" takes no options')
    await expect(setUpPlugin(bare, undefined)).resolves.toMatchObject({ name: 'bare' })
  })

  it('keeps the plugin\'s secrets from the child environment and redacts them, as the gateway does', async () => {
    const { plugin, seen } = teams()
    const env = { PATH: '/usr/bin', TEAMS_TOKEN: TOKEN, WRAPPED: `Bearer ${TOKEN}`, LOG_FORMAT: 'json' }
    await setUpPlugin(plugin, { url: 'https://teams.example', token: TOKEN }, { env })
    expect(seen.ctx?.childEnv).toEqual({ PATH: '/usr/bin', LOG_FORMAT: 'json' })
    expect(seen.ctx?.redact(`posting with ${TOKEN}`)).not.toContain(TOKEN)
  })
})
