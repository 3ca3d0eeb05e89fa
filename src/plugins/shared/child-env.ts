/**
 * The environment of the programs the gateway runs (the agent, its tools, gh). They inherit the gateway's
 * environment, so that their own credentials (an API key, GH_TOKEN) work, but not the gateway's own secrets:
 * a prompt-injected agent must not be able to print the webhook secret or a chat token into a public comment.
 */
import type { HookpilotConfig } from '../../core/config.js'

/** Every secret the configuration holds: route and global webhook secrets, chat credentials, the model API key. */
export function configSecrets(config: HookpilotConfig): string[] {
  const { webhook, telegram, discord, slack, sms } = config.platforms
  const list = (value: string | readonly string[] | undefined) => (value === undefined ? [] : typeof value === 'string' ? [value] : value)
  const secrets = [
    ...list(webhook.extra.secret),
    ...Object.values(webhook.extra.routes).flatMap((route) => list(route.secret)),
    telegram?.token, discord?.token, slack?.token, sms?.auth_token,
    config.agent.api_key,
  ]
  return secrets.filter((s): s is string => s !== undefined && s.trim() !== '' && s !== 'INSECURE_NO_AUTH')
}

/** `env` without the variables whose value is one of `secrets`. */
export function childEnv(secrets: readonly string[], env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (secrets.length === 0) return { ...env }
  const hidden = new Set(secrets)
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value === undefined || !hidden.has(value)))
}
