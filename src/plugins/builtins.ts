/**
 * The built-in plugins, in the order a gateway composes them; user plugins come after these, so theirs replace
 * a built-in's one-implementation slot or add to the many-slots. Each owns its configuration (its section of
 * config.yaml) and loads its implementation only when it is set up, so importing the package stays cheap.
 */
import type { PluginDefinition } from '../core/plugin-api/definition.js'
import { commandPlugin } from './runners/command/plugin.js'
import { discordPlugin } from './targets/discord/plugin.js'
import { echoPlugin } from './runners/echo/plugin.js'
import { githubAppPlugin } from './github-app/plugin.js'
import { githubCommentPlugin } from './targets/github-comment/plugin.js'
import { gitlabMrPlugin } from './targets/gitlab-mr/plugin.js'
import { logPlugin } from './targets/log/plugin.js'
import { marketPlugin } from './sources/market/plugin.js'
import { memoryStatePlugin } from './state/memory/plugin.js'
import { metricsPlugin } from './metrics/plugin.js'
import { tracingPlugin } from './tracing/plugin.js'
import { statusPagePlugin } from './status-page/plugin.js'
import { openaiPlugin } from './runners/openai/plugin.js'
import { signalPlugin } from './targets/signal/plugin.js'
import { slackPlugin } from './targets/slack/plugin.js'
import { slidingWindowPlugin } from './limiters/sliding-window/plugin.js'
import { smsPlugin } from './targets/sms/plugin.js'
import { sourcesPlugin } from './sources/plugin.js'
import { postgresStatePlugin } from './state/postgres/plugin.js'
import { redisStatePlugin } from './state/redis/plugin.js'
import { sqliteStatePlugin } from './state/sqlite/plugin.js'
import { telegramPlugin } from './targets/telegram/plugin.js'

/** Every built-in plugin definition. */
export const BUILTIN_PLUGINS: readonly PluginDefinition[] = [
  sourcesPlugin,
  marketPlugin,
  slidingWindowPlugin,
  memoryStatePlugin,
  sqliteStatePlugin,
  redisStatePlugin,
  postgresStatePlugin,
  echoPlugin,
  commandPlugin,
  openaiPlugin,
  logPlugin,
  githubAppPlugin,
  githubCommentPlugin,
  gitlabMrPlugin,
  telegramPlugin,
  discordPlugin,
  slackPlugin,
  signalPlugin,
  smsPlugin,
  metricsPlugin,
  tracingPlugin,
  statusPagePlugin,
] as readonly PluginDefinition[]
