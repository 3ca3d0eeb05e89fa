/**
 * The delivery targets a configuration asks for: `github_comment` always (it needs only gh), and each chat
 * platform only when `platforms.<name>.enabled`. A route naming a platform left out here is refused at startup,
 * with the route and the platform named. Missing credentials of every enabled platform are reported at once.
 */
import type { HookpilotConfig } from '../../core/config.js'
import { ConfigError, type ConfigIssue } from '../../core/errors.js'
import type { DeliveryTarget } from '../../core/types.js'
import { discordDelivery } from '../discord/index.js'
import { githubCommentDelivery } from '../github-comment/index.js'
import { gatherIssues } from './gather-issues.js'
import { signalDelivery } from '../signal/index.js'
import { slackDelivery } from '../slack/index.js'
import { smsDelivery } from '../sms/index.js'
import { telegramDelivery } from '../telegram/index.js'

type Platforms = HookpilotConfig['platforms']

/**
 * Builds the configured delivery targets; throws one ConfigError listing every platform's problems. `gh` is
 * how gh is started: its environment (the gateway's, less its own secrets) and its working directory.
 */
export function platformTargets(platforms: Platforms, gh: { readonly env?: NodeJS.ProcessEnv | undefined; readonly cwd?: string | undefined } = {}): DeliveryTarget[] {
  const issues: ConfigIssue[] = []
  const targets: DeliveryTarget[] = []
  const add = (make: () => DeliveryTarget) => {
    const target = gatherIssues(make, issues)
    if (target) targets.push(target)
  }
  const github = platforms.github
  add(() => githubCommentDelivery({ ghPath: github.gh_path, timeoutMs: github.timeout_seconds * 1000, env: gh.env, cwd: gh.cwd }))
  const { telegram, discord, slack, signal, sms } = platforms
  if (telegram?.enabled) add(() => telegramDelivery({ ...common(telegram), token: telegram.token }))
  if (discord?.enabled) add(() => discordDelivery({ ...common(discord), token: discord.token }))
  if (slack?.enabled) add(() => slackDelivery({ ...common(slack), token: slack.token }))
  if (signal?.enabled) add(() => signalDelivery({ ...common(signal), apiBase: signal.api_base, account: signal.account }))
  if (sms?.enabled) {
    add(() => smsDelivery({ ...common(sms), accountSid: sms.account_sid, authToken: sms.auth_token, from: sms.from }))
  }
  if (issues.length > 0) throw new ConfigError(issues)
  return targets
}

/** The keys every chat platform block has. */
interface ChatBlock {
  readonly home_channel?: string | undefined
  readonly api_base?: string | undefined
  readonly timeout_seconds: number
}

function common(block: ChatBlock) {
  return { homeChannel: block.home_channel, apiBase: block.api_base, timeoutMs: block.timeout_seconds * 1000 }
}
