/**
 * The built-in plugins, in the order a gateway composes them; user plugins come after these, so theirs replace
 * a built-in's one-implementation slot or add to the many-slots. Each owns its configuration (its section of
 * config.yaml) and loads its implementation only when it is set up, so importing the package stays cheap.
 */
import type { PluginDefinition } from '../core/plugin-definition.js'
import { commandPlugin } from './command-agent/plugin.js'
import { discordPlugin } from './discord/plugin.js'
import { echoPlugin } from './echo-agent/plugin.js'
import { githubCommentPlugin } from './github-comment/plugin.js'
import { logPlugin } from './log-delivery/plugin.js'
import { memoryStatePlugin } from './memory-state/plugin.js'
import { metricsPlugin } from './metrics/plugin.js'
import { openaiPlugin } from './openai-agent/plugin.js'
import { signalPlugin } from './signal/plugin.js'
import { slackPlugin } from './slack/plugin.js'
import { slidingWindowPlugin } from './sliding-window-limiter/plugin.js'
import { smsPlugin } from './sms/plugin.js'
import { sourcesPlugin } from './sources/plugin.js'
import { redisStatePlugin } from './redis-state/plugin.js'
import { sqliteStatePlugin } from './sqlite-state/plugin.js'
import { telegramPlugin } from './telegram/plugin.js'

/** Every built-in plugin definition. */
export const BUILTIN_PLUGINS: readonly PluginDefinition[] = [
  sourcesPlugin,
  slidingWindowPlugin,
  memoryStatePlugin,
  sqliteStatePlugin,
  redisStatePlugin,
  echoPlugin,
  commandPlugin,
  openaiPlugin,
  logPlugin,
  githubCommentPlugin,
  telegramPlugin,
  discordPlugin,
  slackPlugin,
  signalPlugin,
  smsPlugin,
  metricsPlugin,
] as readonly PluginDefinition[]
