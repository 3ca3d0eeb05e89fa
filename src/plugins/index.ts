/**
 * The built-in plugins the gateway composes by default: sources (GitHub, GitLab, generic HMAC), the state backends, the rate
 * limiter, the delivery targets and the agent runners. Each is a factory returning a plain object.
 */
export { githubSource } from './github-signature/index.js'
export { gitlabSource } from './gitlab-token/index.js'
export { genericSource } from './generic-signature/index.js'
export { hmacSignatureVerifier, type HmacSchemeOptions } from './shared/hmac-verifier.js'
export { memoryState, type MemoryStateOptions } from './memory-state/index.js'
export { sqliteState, type SqliteStateOptions } from './sqlite-state/index.js'
export { slidingWindowLimiter, type SlidingWindowOptions } from './sliding-window-limiter/index.js'
export { logDelivery } from './log-delivery/index.js'
export { echoAgent } from './echo-agent/index.js'
export { commandAgent, type CommandAgentOptions } from './command-agent/index.js'
export { githubCommentDelivery, commentBody, GITHUB_COMMENT_LIMIT, type GithubCommentOptions } from './github-comment/index.js'
export { telegramDelivery, TELEGRAM_LIMIT, type TelegramOptions } from './telegram/index.js'
export { discordDelivery, DISCORD_LIMIT, type DiscordOptions } from './discord/index.js'
export { slackDelivery, SLACK_LIMIT, type SlackOptions } from './slack/index.js'
export { signalDelivery, SIGNAL_LIMIT, type SignalOptions } from './signal/index.js'
export { smsDelivery, SMS_LIMIT, type SmsOptions } from './sms/index.js'
export { openaiAgent, type OpenaiAgentOptions } from './openai-agent/index.js'
