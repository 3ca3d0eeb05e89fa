/**
 * The secrets of a configuration, for the gateway's secret set (core/secrets.ts), which keeps them (and every
 * variable holding one, or part of one) from the programs the gateway runs and redacts them from its log:
 * a prompt-injected agent must not be able to print the webhook secret or a chat token into a public comment.
 */
import type { HookpilotConfig } from '../../core/config.js'
import { createSecretSet, type SecretSet } from '../../core/secrets.js'

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

/** A secret set that knows the configuration's secrets. */
export function configSecretSet(config: HookpilotConfig): SecretSet {
  const secrets = createSecretSet()
  secrets.set('config', configSecrets(config))
  return secrets
}
