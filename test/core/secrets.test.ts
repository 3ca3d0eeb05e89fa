/**
 * The secret set: the one place that knows every secret of a gateway, and produces both the redactor (for
 * every log line, stored reason and delivered answer) and the environment of the programs the gateway runs.
 */
import { describe, expect, it } from 'vitest'
import { createSecretSet } from '../../src/core/secrets/secret-set.js'
import { secretForms } from '../../src/core/secrets/encodings.js'
import { redact } from '../../src/core/secrets/redact.js'
import { parseConfig } from '../../src/index.js'
import { createScope } from '../../src/core/gateway/container.js'
import { silentLogger } from '../../src/core/log/logger.js'
import { setupPlugins } from '../../src/core/plugin-api/setup.js'
import type { HookpilotConfig } from '../../src/core/config/schema.js'
import { BUILTIN_PLUGINS } from '../../src/plugins/builtins.js'

/** The set a gateway builds for a configuration: its routes' secrets and every plugin's secret options. */
async function configSecretSet(config: HookpilotConfig) {
  const base = { clock: Date.now, baseDir: '.', resources: createScope().resources, log: silentLogger, childEnv: () => ({}), workdir: '.', redact: (t: string) => t }
  const { secrets } = await setupPlugins(config, BUILTIN_PLUGINS, base)
  const set = createSecretSet()
  set.set('config', secrets)
  return set
}

const ENV = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/hookpilot',
  GH_TOKEN: 'ghx-not-token-shaped-but-a-credential',
  PART: 'part-of-the-route-secret',
  WHOLE: 'route-secret-pre-part-of-the-route-secret',
  DSN: 'postgres://u:route-secret-pre-part-of-the-route-secret@db/x',
  SHORT_TOKEN: 'abc',
  OTHER: 'visible',
}

describe('secret set', () => {
  const config = parseConfig({
    platforms: { webhook: { extra: { routes: { pr: { secret: 'route-secret-pre-${PART}' } } } }, telegram: { enabled: true, token: 'tg-token-value-1', home_channel: '1' } },
  }, { env: ENV })

  it('keeps from children every variable that holds a secret, contains one, or holds part of one; credentials and the rest pass', () => {
    const secrets = createSecretSet({ env: ENV })
    secrets.set('config', ['route-secret-pre-part-of-the-route-secret'])
    expect(secrets.childEnv()).toEqual({ PATH: ENV.PATH, HOME: ENV.HOME, GH_TOKEN: ENV.GH_TOKEN, SHORT_TOKEN: 'abc', OTHER: 'visible' })
  })

  it('redacts own secrets (also URL-encoded), variables holding one, credentials of the environment and token shapes', () => {
    const secrets = createSecretSet({ env: ENV })
    secrets.set('config', ['route-secret-pre-part-of-the-route-secret', 'a secret/with spaces'])
    const text = [
      'full route-secret-pre-part-of-the-route-secret', `dsn ${ENV.DSN}`, `gh ${ENV.GH_TOKEN}`,
      'encoded a%20secret%2Fwith%20spaces', 'shaped ghp_abcdefghijklmnopqrstuvwxyz12', 'short abc stays',
    ].join('\n')
    expect(secrets.redact(text)).toBe([
      'full [redacted]', 'dsn [redacted]', 'gh [redacted]', 'encoded [redacted]', 'shaped [redacted]', 'short abc stays',
    ].join('\n'))
  })

  it('redacts no word of the environment merely because a secret contains it (npm_package_name=hookpilot under npx)', () => {
    const env = { npm_package_name: 'hookpilot', npm_lifecycle_event: 'npx', PWD: '/home/dev/hookpilot', WEBHOOK_TOKEN: 'named-credential-value' }
    const secret = 'hookpilot-example-secret'
    const secrets = createSecretSet({ env })
    secrets.set('config', [secret])
    expect(secrets.redact('state: /home/dev/hookpilot/hookpilot-state.db')).toBe('state: /home/dev/hookpilot/hookpilot-state.db')
    // The secret and its encodings are redacted whole, and so is a variable whose name says it is a secret.
    const forms = [secret, Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('hex'), [...secret].reverse().join(''), env.WEBHOOK_TOKEN]
    for (const form of forms) expect(secrets.redact(`<${form}>`), form).toBe('<[redacted]>')
    expect(secrets.values()).not.toContain('hookpilot')
  })

  it('an origin set again replaces what it said before (subscriptions come and go)', () => {
    const secrets = createSecretSet({ env: {} })
    secrets.set('routes', ['first-secret'])
    secrets.set('config', ['config-secret'])
    secrets.set('routes', ['second-secret'])
    expect([...secrets.values()].sort()).toEqual(['config-secret', 'second-secret'])
    expect(secrets.redact('first-secret second-secret')).toBe('first-secret [redacted]')
  })

  it('the configuration\'s set knows its secrets, built from ${VAR} parts: PART is kept from children', async () => {
    const secrets = await configSecretSet(config)
    const saved = { ...process.env }
    try {
      Object.assign(process.env, ENV)
      const env = (await configSecretSet(config)).childEnv()
      expect(env['PART']).toBeUndefined()
      expect(env['WHOLE']).toBeUndefined()
      expect(env['OTHER']).toBe('visible')
    } finally {
      for (const key of Object.keys(ENV)) if (saved[key] === undefined) delete process.env[key]
    }
    expect(secrets.values()).toContain('tg-token-value-1')
    expect(secrets.values()).toContain('route-secret-pre-part-of-the-route-secret')
  })
})

describe('secret set: what is not a part', () => {
  it('a short value that merely occurs in a secret is neither redacted nor kept from children; half a secret is a part', () => {
    const secrets = createSecretSet({ env: { LOG_FORMAT: 'json', HALF: 'abcdef' } })
    secrets.set('config', ['json-logs-secret-0123456789', 'abcdef-12345'])
    expect(secrets.childEnv()).toEqual({ LOG_FORMAT: 'json' })
    expect(secrets.redact('format json')).toBe('format json')
  })
})

describe('secret forms: what an agent may encode a secret as', () => {
  const secret = 'route-secret-7c1e2f9a'
  const b = Buffer.from(secret)

  it('redacts base64 (standard, URL-safe, with and without padding), hex in either case, URL-encoded escapes in either case, reversed', () => {
    const secrets = createSecretSet({ env: {} })
    secrets.set('config', [secret, 'a secret/with spaces?'])
    const forms = [
      b.toString('base64'), b.toString('base64').replace(/=+$/, ''), b.toString('base64url'), b.toString('hex'), b.toString('hex').toUpperCase(),
      [...secret].reverse().join(''), 'a%20secret%2fwith%20spaces%3f', 'a%20secret%2Fwith%20spaces%3F',
    ]
    for (const form of forms) expect(secrets.redact(`<${form}>`), form).toBe('<[redacted]>')
    // The redactor plugins use with secrets of their own knows the same forms.
    for (const form of forms) expect(redact(`<${form}>`, [secret, 'a secret/with spaces?']), form).toBe('<[redacted]>')
  })

  it('redacts a secret inside longer base64 text at each of the three alignments, standard and URL-safe', () => {
    const secrets = createSecretSet({ env: {} })
    secrets.set('config', [secret])
    for (const before of ['', 'x', 'xy', 'xyz']) {
      for (const after of ['', '?', '??']) {
        for (const encoding of ['base64', 'base64url'] as const) {
          const text = Buffer.from(`prefix ${before}${secret}${after} suffix ~~~`).toString(encoding)
          const out = secrets.redact(text)
          expect(out, `${before}|${after}|${encoding}`).toContain('[redacted]')
          // What is left around the cut holds no more than a byte or two of the secret.
          for (const piece of out.split('[redacted]')) expect(Buffer.from(piece, encoding).toString('latin1')).not.toContain(secret.slice(2, -2))
        }
      }
    }
  })

  it('a short secret\'s part inside longer base64 is too short to tell from chance and is left alone', () => {
    expect(secretForms('abcd').every((form) => form.length >= 4)).toBe(true)
    expect(secretForms('abcd')).not.toContain(Buffer.from('\0abcd').toString('base64').slice(2, -1))
  })
})
