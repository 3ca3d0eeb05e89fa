import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError, GatewayError, createGateway, loadConfig, parseConfig, type HookpilotConfigInput } from '../../src/index.js'
import { staticRoutes } from '../../src/core/routes/static-routes.js'

function issuesOf(fn: () => unknown): Array<{ path: string; message: string }> {
  try {
    fn()
  } catch (err) {
    if (err instanceof ConfigError) return [...err.issues]
    throw err
  }
  throw new Error('expected a ConfigError')
}

const route = (extra: Record<string, unknown> = {}): HookpilotConfigInput => ({
  platforms: { webhook: { extra: { host: '127.0.0.1', routes: { pr: { secret: 's', ...extra } } } } },
})

describe('parseConfig', () => {
  it('fills the documented defaults', () => {
    const config = parseConfig({}, { env: {} })
    expect(config.platforms.webhook).toEqual({
      enabled: true,
      extra: expect.objectContaining({ host: '0.0.0.0', port: 8644, rate_limit: 30, max_body_bytes: 1_048_576, routes: {} }),
    })
    expect(config.agent).toMatchObject({ runner: 'echo', timeout_seconds: 600, concurrency: 4 })
    expect(config.skills_dir).toBe('./skills')
    expect(config.state).toEqual({ driver: 'sqlite', path: '.hookpilot/state.db', sync: 'normal', keep_done_hours: 24, keep_failed_days: 7 })
  })

  it('state: the sqlite backend checks its own keys (sync modes, retention), and a typo gets a suggestion', () => {
    const issues = issuesOf(() => parseConfig({ state: { sync: 'always', keep_done_hours: 0, pth: 'x.db' } } as never, { env: {} }))
    expect(issues).toEqual(expect.arrayContaining([
      { path: 'state.sync', message: expect.stringContaining('expected normal (survives a killed process) or full (survives power loss)') },
      { path: 'state.keep_done_hours', message: expect.stringContaining('at least 1') },
      { path: 'state.pth', message: expect.stringContaining('did you mean "path"?') },
    ]))
  })

  it('state: the redis backend checks its own keys: url required and a redis URL, a usable prefix, a typo suggested', () => {
    expect(issuesOf(() => parseConfig({ state: { driver: 'redis' } } as never, { env: {} }))).toEqual([
      { path: 'state.url', message: expect.stringMatching(/required|expected/i) },
    ])
    const issues = issuesOf(() => parseConfig({ state: { driver: 'redis', url: 'http://10.0.0.5:6379', prefix: 'a b', lock_secnds: 5 } } as never, { env: {} }))
    expect(issues).toEqual(expect.arrayContaining([
      { path: 'state.url', message: expect.stringContaining('expected redis://host:port (or rediss:// for TLS)') },
      { path: 'state.prefix', message: expect.stringContaining('letters, digits, _ . and - only') },
      { path: 'state.lock_secnds', message: expect.stringContaining('did you mean "lock_seconds"?') },
    ]))
    expect(JSON.stringify(issues)).not.toContain('10.0.0.5') // a refused URL (it may hold a password) is not echoed
    const config = parseConfig({ state: { driver: 'redis', url: 'redis://:pw@10.0.0.5:6379/2' } } as never, { env: {} })
    expect(config.state).toMatchObject({ driver: 'redis', url: 'redis://:pw@10.0.0.5:6379/2' })
  })

  it('reports every problem at once, each with its path; unknown keys included', () => {
    const issues = issuesOf(() =>
      parseConfig({
        platforms: { webhook: { extra: { port: 70000, rate_limit: 'lots', routes: { pr: { secret: 's', events: 'pull_request', secrett: 'x' } } } } },
        agent: { concurency: 2 },
      } as unknown as HookpilotConfigInput, { env: {} }),
    )
    expect(issues.map((i) => i.path).sort()).toEqual([
      'agent.concurency',
      'platforms.webhook.extra.port',
      'platforms.webhook.extra.rate_limit',
      'platforms.webhook.extra.routes.pr.events',
      'platforms.webhook.extra.routes.pr.secrett',
    ])
    expect(issues.find((i) => i.path === 'agent.concurency')?.message).toMatch(/unknown key/)
    expect(issues.find((i) => i.path.endsWith('.port'))?.message).toMatch(/0 to 65535/)
  })

  it('refuses a bad route name and a skill name that could leave the skills folder', () => {
    const issues = issuesOf(() => parseConfig({ platforms: { webhook: { extra: { secret: 's', routes: { 'Bad Name': {}, ok: { skills: ['../etc'] } } } } } }, { env: {} }))
    expect(issues.map((i) => i.path)).toEqual(expect.arrayContaining(['platforms.webhook.extra.routes.Bad Name', 'platforms.webhook.extra.routes.ok.skills.0']))
  })

  it('interpolates ${VAR} and ${VAR:-default}, numbers included', () => {
    const config = parseConfig(
      { platforms: { webhook: { extra: { port: '${PORT:-9000}', routes: { pr: { secret: '${SECRET}', prompt: 'keep {number}' } } } } } },
      { env: { SECRET: 'from-env' } },
    )
    expect(config.platforms.webhook.extra.port).toBe(9000)
    expect(config.platforms.webhook.extra.routes['pr']?.secret).toBe('from-env')
    expect(config.platforms.webhook.extra.routes['pr']?.prompt).toBe('keep {number}')
  })

  it('an unset variable without a default is an error at its path', () => {
    const issues = issuesOf(() => parseConfig({ platforms: { webhook: { extra: { routes: { pr: { secret: '${GITHUB_WEBHOOK_SECRET}' } } } } } }, { env: {} }))
    expect(issues).toContainEqual({ path: 'platforms.webhook.extra.routes.pr.secret', message: expect.stringContaining('GITHUB_WEBHOOK_SECRET is not set') })
  })

  it('WEBHOOK_* variables override the file', () => {
    const config = parseConfig(route(), { env: { WEBHOOK_PORT: '9100', WEBHOOK_HOST: '::1', WEBHOOK_ENABLED: 'false', WEBHOOK_SECRET: 'g' } })
    expect(config.platforms.webhook).toMatchObject({ enabled: false, extra: { port: 9100, host: '::1', secret: 'g' } })
  })

  it('a route with no secret and no global secret is an error, never an open route', () => {
    const issues = issuesOf(() => parseConfig({ platforms: { webhook: { extra: { routes: { pr: {} } } } } }, { env: {} }))
    expect(issues).toEqual([{ path: 'platforms.webhook.extra.routes.pr.secret', message: expect.stringContaining('no secret') }])
  })

  it('a route falls back to the global secret, and a list of secrets is kept for rotation', () => {
    const config = parseConfig({ platforms: { webhook: { extra: { secret: ['old', 'new'], routes: { a: {}, b: { secret: 'own' } } } } } }, { env: {} })
    expect(staticRoutes(config).map((r) => [r.name, r.secrets])).toEqual([['a', ['old', 'new']], ['b', ['own']]])
  })

  it('INSECURE_NO_AUTH is refused unless the host is loopback, and says why', () => {
    const issues = issuesOf(() => parseConfig({ platforms: { webhook: { extra: { host: '0.0.0.0', routes: { dev: { secret: 'INSECURE_NO_AUTH' } } } } } }, { env: {} }))
    expect(issues[0]?.message).toMatch(/127\.0\.0\.1/)
    for (const host of ['127.0.0.1', '::1', 'localhost']) {
      expect(() => parseConfig({ platforms: { webhook: { extra: { host, routes: { dev: { secret: 'INSECURE_NO_AUTH' } } } } } }, { env: {} })).not.toThrow()
    }
  })

  it('a blank secret is no secret; an empty route secret that hides the global one says so', () => {
    const blank = issuesOf(() => parseConfig({ platforms: { webhook: { extra: { secret: '  ', routes: { pr: {} } } } } }, { env: {} }))
    expect(blank).toEqual([{ path: 'platforms.webhook.extra.routes.pr.secret', message: expect.stringContaining('no secret') }])
    const hidden = issuesOf(() => parseConfig({ platforms: { webhook: { extra: { secret: 'global', routes: { pr: { secret: '${PR_SECRET:-}' } } } } } }, { env: {} }))
    expect(hidden).toEqual([{
      path: 'platforms.webhook.extra.routes.pr.secret',
      message: expect.stringMatching(/route's own secret is empty.*remove the key to use the global secret/),
    }])
  })

  it('refuses an id YAML has rounded, and says to quote it; exact numbers become strings', async () => {
    const { parseDocument } = await import('yaml')
    const yaml = 'platforms:\n  discord: { enabled: true, token: t, home_channel: 1234567890123456789 }\n' +
      '  webhook: { extra: { secret: s, routes: { pr: { deliver_extra: { chat_id: 1234567890123456789 } } } } }\n'
    const issues = issuesOf(() => parseConfig(parseDocument(yaml).toJS() as HookpilotConfigInput, { env: {} }))
    expect(issues.map((i) => i.path).sort()).toEqual(['platforms.discord.home_channel', 'platforms.webhook.extra.routes.pr.deliver_extra.chat_id'])
    for (const issue of issues) expect(issue.message).toMatch(/write the id in quotes/)
    const exact = parseConfig(route({ deliver_extra: { chat_id: -1001234567890 } }), { env: {} })
    expect(staticRoutes(exact)[0]?.deliverExtra).toEqual({ chat_id: '-1001234567890' })
  })

  it('an empty host or gh_path is refused with what to write instead', () => {
    const issues = issuesOf(() => parseConfig({ platforms: { webhook: { extra: { host: '' } }, github: { gh_path: '' } } }, { env: {} }))
    expect(issues).toEqual([
      { path: 'platforms.webhook.extra.host', message: expect.stringContaining('127.0.0.1') },
      { path: 'platforms.github.gh_path', message: expect.stringContaining('gh executable') },
    ])
  })

  it('a wrong type keeps the schema\'s own words and says what it got', () => {
    const issues = issuesOf(() => parseConfig({ log_level: 'verbose', ...route({ events: 'pull_request' }) } as unknown as HookpilotConfigInput, { env: {} }))
    expect(issues).toEqual(expect.arrayContaining([
      { path: 'log_level', message: 'expected debug, info, warn or error, not "verbose"' },
      { path: 'platforms.webhook.extra.routes.pr.events', message: 'expected a list of strings, got a string' },
    ]))
  })

  it('a word outside a closed list is shown, with the allowed word it is closest to (issue 25, item 3)', () => {
    const issues = issuesOf(() => parseConfig({ log_level: 'inof', log_format: 'jsno', ...route({}) } as unknown as HookpilotConfigInput, { env: {} }))
    expect(issues).toEqual([
      { path: 'log_level', message: 'expected debug, info, warn or error, not "inof" (did you mean "info"?)' },
      { path: 'log_format', message: 'expected text (for people) or json (one object a line, for log systems), not "jsno" (did you mean "json"?)' },
    ])
  })

  it('an unclosed placeholder in a prompt or a deliver_extra template is reported with where it starts (issue 25, item 3)', () => {
    const issues = issuesOf(() => parseConfig(route({ prompt: 'Review {number in {repository.full_name}', deliver_extra: { repo: '{repository.full_name' } }), { env: {} }))
    expect(issues).toEqual([
      { path: 'platforms.webhook.extra.routes.pr.prompt', message: 'the placeholder "{number" at character 8 is never closed: write it as "{number}" (a field of the payload in braces)' },
      { path: 'platforms.webhook.extra.routes.pr.deliver_extra.repo', message: expect.stringContaining('"{repository.full_name" at character 1 is never closed') },
    ])
    // Braces that start no field name, or that close, are text: a prompt may quote JSON or code.
    expect(() => parseConfig(route({ prompt: 'Answer as { "verdict": "ok" } or fn() {return 1}; PR {number}' }), { env: {} })).not.toThrow()
  })

  it('keeps the platform-neutral delivery names as written: the target that owns the alias resolves it', () => {
    const config = parseConfig(route({ deliver: 'messenger_2' }), { env: {} })
    expect(staticRoutes(config)[0]?.deliver).toBe('messenger_2')
  })

  it('never echoes a value it refuses: a secret written as a YAML number is named by its kind only', () => {
    // eslint-disable-next-line no-loss-of-precision -- a long unquoted numeric secret, which YAML reads as an imprecise number: the reason it must be quoted
    const issues = issuesOf(() => parseConfig({ platforms: { webhook: { extra: { routes: { pr: { secret: 918273645546372819 } } } } } } as never, { env: {} }))
    expect(issues).toEqual([{ path: 'platforms.webhook.extra.routes.pr.secret', message: 'expected a string or a list of strings, got a number (write secrets in quotes)' }])
    expect(JSON.stringify(issues)).not.toContain('918273')
  })

  it('reports every unknown key of an object, each with a "did you mean" when one is close', () => {
    const issues = issuesOf(() => parseConfig(route({ secrett: 'x', evnets: ['push'] } as never), { env: {} }))
    expect(issues).toEqual(expect.arrayContaining([
      { path: 'platforms.webhook.extra.routes.pr.secrett', message: expect.stringContaining('did you mean "secret"?') },
      { path: 'platforms.webhook.extra.routes.pr.evnets', message: expect.stringContaining('did you mean "events"?') },
    ]))
    const platforms = issuesOf(() => parseConfig({ platforms: { telegrm: { enabled: true } } } as never, { env: {} }))
    expect(platforms).toEqual([{ path: 'platforms.telegrm', message: expect.stringContaining('did you mean "telegram"?') }])
  })
})

describe('fair turns and expiry (fair_by, start_within_seconds)', () => {
  it('a route keeps its fairness template and start deadline', () => {
    const config = parseConfig(route({ fair_by: '{repository.full_name}', start_within_seconds: '3600' }), { env: {} })
    expect(staticRoutes(config)[0]).toMatchObject({ fairBy: '{repository.full_name}', startWithinMs: 3_600_000 })
    expect(staticRoutes(parseConfig(route(), { env: {} }))[0]).toMatchObject({ fairBy: undefined, startWithinMs: undefined })
  })

  it('refuses a fair_by that names no payload field, and a start deadline that is not a positive number of seconds', () => {
    expect(issuesOf(() => parseConfig(route({ fair_by: 'repository' }), { env: {} }))).toEqual([
      expect.objectContaining({ path: 'platforms.webhook.extra.routes.pr.fair_by', message: expect.stringContaining('fair_by must name at least one payload field, e.g. "{repository.full_name}"') }),
    ])
    expect(issuesOf(() => parseConfig(route({ start_within_seconds: 0 }), { env: {} }))).toEqual([
      expect.objectContaining({ path: 'platforms.webhook.extra.routes.pr.start_within_seconds' }),
    ])
  })
})

describe('loadConfig', () => {
  async function file(text: string): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-config-'))
    const path = join(dir, 'config.yaml')
    await writeFile(path, text)
    return path
  }

  it('reads the example config', async () => {
    const config = await loadConfig('examples/config.yaml', { env: {} })
    expect(Object.keys(config.platforms.webhook.extra.routes)).toEqual(['github-pr-review', 'gitlab-mr-review'])
    // docs/reviews.md's default: one group per pull request.
    expect(config.platforms.webhook.extra.routes['github-pr-review']?.concurrency).toMatchObject({ key: '{repository.full_name}#{pull_request.number}', cancel_in_progress: true })
  })

  it('names the file and the YAML problem', async () => {
    const path = await file('platforms:\n  webhook: [unclosed\n')
    await expect(loadConfig(path, { env: {} })).rejects.toThrow(/Invalid configuration in .*config\.yaml:\n {2}- \(root\): YAML/)
  })

  it('a missing file says which and how to pass another', async () => {
    const err = await loadConfig('/nonexistent/config.yaml').catch((e: unknown) => e)
    expect(GatewayError.is(err) && err.code).toBe('ERR_CONFIG')
    expect((err as Error).message).toMatch(/\/nonexistent\/config\.yaml: no such file in \/nonexistent\. Pass --config FILE/)
  })

  it('a folder given as the file says so and names the file to pass, not a raw EISDIR', async () => {
    const folder = dirname(await file(''))
    const err = await loadConfig(folder).catch((e: unknown) => e)
    expect(GatewayError.is(err) && err.code).toBe('ERR_CONFIG')
    expect((err as Error).message).toBe(`Cannot read the configuration ${folder}: it is a folder, not a file. Pass the file inside it, e.g. --config ${join(folder, 'config.yaml')}.`)
  })

  it('a YAML syntax error ends with where it is, not with a colon followed by nothing', async () => {
    const path = await file('platforms:\n  webhook:\n    enabled: true\n    extra:\n  bad: [\nfoo: 1\n')
    const err = await loadConfig(path, { env: {} }).catch((e: unknown) => e)
    const line = (err as Error).message.split('\n').find((l) => l.includes('YAML:'))
    expect(line).toMatch(/at line \d+, column \d+$/)
  })

  it('an empty file is the defaults', async () => {
    expect((await loadConfig(await file(''), { env: {} })).platforms.webhook.extra.port).toBe(8644)
  })
})

describe('startup checks', () => {
  it('a route delivering to a platform that is not enabled names the route and the platform', async () => {
    const err = await createGateway(parseConfig(route({ deliver: 'telegram' }), { env: {} })).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as ConfigError).issues[0]).toEqual({
      path: 'platforms.webhook.extra.routes.pr.deliver',
      message: expect.stringMatching(/route "pr" delivers to telegram, but platforms\.telegram is not enabled/),
    })
  })

  it('an unknown target lists the available ones', async () => {
    const err = await createGateway(parseConfig(route({ deliver: 'pigeon' }), { env: {} })).catch((e: unknown) => e)
    expect((err as ConfigError).issues[0]?.message).toMatch(/"pigeon", which no plugin provides \(available: .*log/)
  })

  it('an agent.runner no plugin provides is a config error at agent.runner', async () => {
    const err = await createGateway(parseConfig({ ...route(), agent: { runner: 'gpt-magic' } }, { env: {} })).catch((e: unknown) => e)
    expect((err as ConfigError).issues[0]?.path).toBe('agent.runner')
  })

  it('the command runner needs agent.command', async () => {
    const err = await createGateway(parseConfig({ ...route(), agent: { runner: 'command' } }, { env: {} })).catch((e: unknown) => e)
    expect((err as ConfigError).issues[0]?.path).toBe('agent.command')
  })
})
