/**
 * The one place that knows every secret of a gateway, and what follows from it: a redactor for anything logged
 * or stored, and the environment of the programs the gateway starts. Sources of secrets feed it by origin:
 * the configuration, the routes (dynamic subscriptions change while the gateway runs), and any plugin that
 * declares secret options of its own.
 *
 * Two kinds are told apart. The gateway's **own** secrets (webhook secrets, chat tokens, the model API key)
 * are redacted and kept from children, with every variable that holds one or contains one (a DSN with a
 * password). A variable that holds a part of one (`secret: "pre-${PART}"`) is kept from children too, but it is
 * not redacted as a secret of its own: a part is only a word the secret contains, and npm's
 * `npm_package_name=hookpilot` inside the example's `hookpilot-example-secret` turned every "hookpilot" of the
 * log into `[redacted]` (issue 38, item 7). The secret itself, in each of its forms, is still redacted whole.
 * **Credentials** the gateway was given for its children (GH_TOKEN, an agent's API key: variables whose names
 * say they are secret) are redacted but still passed on, or gh and the agent could not work.
 */
import { REDACTED, redactTokenShapes } from './redact.js'
import { secretForms } from './encodings.js'
import { INSECURE_NO_AUTH } from '../route-types.js'

/** An environment, as `process.env`. */
export type SecretEnv = Readonly<Record<string, string | undefined>>

/** Every secret a gateway knows; see the module comment. */
export interface SecretSet {
  /** Sets the gateway's own secrets known to `origin` (`config`, `routes`, a plugin's name), replacing the previous ones. */
  set(origin: string, values: Iterable<string | undefined>): void
  /** Every value redacted: own secrets, credentials of the environment, and variables holding or containing an own secret. */
  values(): readonly string[]
  /** `text` with every value of {@link values} (also encoded: base64, hex, URL-encoded, reversed; see secretForms) and every token-shaped string replaced. */
  redact(text: string): string
  /** The environment for a child program: the gateway's, less every variable holding or touching an own secret. */
  childEnv(): NodeJS.ProcessEnv
}

/** Options of {@link createSecretSet}. */
export interface SecretSetOptions {
  /** The gateway's environment; `process.env` by default. */
  readonly env?: SecretEnv | undefined
}

/** Shorter values are not treated as secrets: `1`, `on` or `C` would match everywhere. */
const MIN_LENGTH = 4
/**
 * A variable is taken for part of a secret (kept from children, not redacted) when the secret holds its value and that value is long (8
 * characters) or is at least half of the secret: `LOG_FORMAT=json` is not part of `json-logs-secret-...`, but
 * `PART` in `pre-${PART}` is.
 */
const MIN_PART_LENGTH = 8
/** A credential of the environment is redacted from this length on (a short value is no credential). */
const MIN_CREDENTIAL_LENGTH = 8
/** Names of variables that hold credentials: GH_TOKEN, OPENAI_API_KEY, AWS_SECRET_ACCESS_KEY, PGPASSWORD, ... */
const CREDENTIAL_NAME = /TOKEN|SECRET|PASSWORD|PASSWD|API_?KEY|ACCESS_?KEY|PRIVATE_?KEY|CREDENTIAL|(?:^|_)(?:KEY|PAT|AUTH)(?:_|$)/i

/**
 * Creates a set that knows no own secret yet; `set()` feeds it.
 *
 * @example
 * ```ts
 * const secrets = createSecretSet()
 * secrets.set('config', ['webhook-secret', process.env.TELEGRAM_BOT_TOKEN])
 * log.error('gh failed', { reason: secrets.redact(stderr) })
 * spawn('agent', [], { env: secrets.childEnv() })
 * ```
 */
export function createSecretSet(options: SecretSetOptions = {}): SecretSet {
  const env = options.env ?? process.env
  const origins = new Map<string, readonly string[]>()
  let cache: { values: readonly string[]; pattern: RegExp | undefined; hidden: ReadonlySet<string> } | undefined

  const credentials = Object.entries(env)
    .filter(([name, value]) => value !== undefined && value.trim().length >= MIN_CREDENTIAL_LENGTH && CREDENTIAL_NAME.test(name))
    .map(([, value]) => value as string)

  function compute() {
    if (cache) return cache
    const own = [...new Set([...origins.values()].flat())]
    // Variables that hold an own secret, contain one, or are part of one: none may reach a child. Only those
    // that hold or contain one are secrets themselves and redacted whole; a part is a word, not a secret.
    const hidden = new Set<string>()
    const holding: string[] = []
    for (const [name, value] of Object.entries(env)) {
      if (value === undefined || value.length < MIN_LENGTH) continue
      if (own.some((s) => value.includes(s))) {
        hidden.add(name)
        holding.push(value)
      } else if (own.some((s) => isPart(value, s))) hidden.add(name)
    }
    const values = [...new Set([...own, ...holding, ...credentials])].sort((a, b) => b.length - a.length)
    cache = { values, pattern: alternation(values), hidden }
    return cache
  }

  return {
    set(origin, values) {
      origins.set(origin, [...values].filter((s): s is string => s !== undefined && s.trim().length >= MIN_LENGTH && s !== INSECURE_NO_AUTH))
      cache = undefined
    },
    values: () => compute().values,
    redact(text) {
      const { pattern } = compute()
      return redactTokenShapes(pattern === undefined ? text : text.replace(pattern, REDACTED))
    },
    childEnv() {
      const { hidden } = compute()
      const out: NodeJS.ProcessEnv = {}
      for (const [name, value] of Object.entries(env)) if (!hidden.has(name)) out[name] = value
      return out
    },
  }
}

function isPart(value: string, secret: string): boolean {
  return secret.includes(value) && (value.length >= MIN_PART_LENGTH || value.length * 2 >= secret.length)
}

/** One pattern for every value in each of its forms; longest first, so a secret holding another goes whole. */
function alternation(values: readonly string[]): RegExp | undefined {
  const forms = new Set<string>()
  for (const value of values) for (const form of secretForms(value)) forms.add(form)
  if (forms.size === 0) return undefined
  const sorted = [...forms].sort((a, b) => b.length - a.length)
  return new RegExp(sorted.map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g')
}
