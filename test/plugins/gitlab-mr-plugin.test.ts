/**
 * `platforms.gitlab` as the gateway reads it: the token is required when enabled, a secret (listed for
 * redaction, kept from every program the gateway runs), `api_url` must be a web address, and a route that
 * delivers to gitlab_mr without the platform enabled, or without its merge request named, is told what to set.
 */
import { describe, expect, it } from 'vitest'
import { createGateway, parseConfig, silentLogger } from '../../src/index.js'
import { createScope } from '../../src/core/gateway/container.js'
import { setupPlugins } from '../../src/core/plugin-api/setup.js'
import { BUILTIN_PLUGINS } from '../../src/plugins/builtins.js'

const ROUTE = { secret: 'route-secret-0123456789', events: ['Merge Request Hook'], deliver: 'gitlab_mr', deliver_extra: { project: '{project.id}', mr_iid: '{object_attributes.iid}' } }

async function open(platforms: Record<string, unknown>, route: Record<string, unknown> = ROUTE): Promise<string> {
  const gateway = await createGateway({
    agent: { runner: 'echo' },
    platforms: { ...platforms, webhook: { extra: { host: '127.0.0.1', port: 0, routes: { mr: route } } } },
  } as never).catch((error: unknown) => String(error))
  if (typeof gateway === 'string') return gateway
  await gateway.close()
  return 'opened'
}

describe('platforms.gitlab', () => {
  it('lists the token among the secrets, kept from child programs', async () => {
    const config = parseConfig({ agent: { runner: 'echo' }, platforms: { gitlab: { enabled: true, token: 'glpat-secret-token-42' }, webhook: { extra: { routes: {} } } } }, { env: {} })
    const { secrets } = await setupPlugins(config, BUILTIN_PLUGINS, { clock: Date.now, baseDir: '.', resources: createScope().resources, log: silentLogger, childEnv: () => ({}), workdir: '.', redact: (t: string) => t })
    expect(secrets).toContain('glpat-secret-token-42')
  })

  it('says what to set: no token, a disabled platform, an api_url that is not one, a route without mr_iid', async () => {
    expect(await open({ gitlab: { enabled: true } })).toMatch(/platforms\.gitlab\.token: required when platforms\.gitlab\.enabled is true/)
    expect(await open({})).toContain('platforms.gitlab is not enabled: set platforms.gitlab.enabled: true')
    expect(await open({ gitlab: { enabled: true, token: 't', api_url: 'gitlab.example.com' } })).toContain('expected the API root of your GitLab, e.g. https://gitlab.example.com/api/v4')
    expect(await open({ gitlab: { enabled: true, token: 't' } }, { ...ROUTE, deliver_extra: { project: '{project.id}' } })).toContain('needs deliver_extra.mr_iid')
    expect(await open({ gitlab: { enabled: true, token: 'glpat-x', api_url: 'https://gitlab.example.com/api/v4' } })).toBe('opened')
  })
})
