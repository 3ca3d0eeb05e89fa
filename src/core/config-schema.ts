/**
 * The valibot schema of `config.yaml`. Objects are strict so a typo is reported instead of silently ignored;
 * numbers also accept digit strings because `${PORT:-8644}` interpolates to a string.
 */
import * as v from 'valibot'
import { trustListProblem } from './client-address.js'
import { reservedNameProblem } from './reserved-names.js'

/** An integer in a range; also accepts a string of digits (what `${VAR}` interpolation produces). */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER) {
  const expected = max === Number.MAX_SAFE_INTEGER ? `expected a whole number of at least ${min}` : `expected a whole number from ${min} to ${max}`
  return v.pipe(
    v.union([v.number(), v.pipe(v.string(), v.regex(/^-?\d+$/), v.transform(Number))], expected),
    v.integer(expected),
    v.minValue(min, expected),
    v.maxValue(max, expected),
  )
}

/** A boolean; also `"true"`/`"false"` strings from interpolation. */
export const boolean = v.union(
  [v.boolean(), v.pipe(v.picklist(['true', 'false']), v.transform((s) => s === 'true'))],
  'expected true or false',
)

const text = v.string('expected a string')
const textList = v.array(text, 'expected a list of strings')
const nonBlank = (what: string) => v.pipe(text, v.check((s: string) => s.trim() !== '', `must not be empty: ${what}`))

/**
 * An id that YAML may write as a number (a chat id, a channel). Ids past 2^53 (Discord's, some Telegram
 * ones) are already rounded when YAML reads them, so a number is taken only while it is exact.
 */
const idText = v.pipe(
  v.union(
    [
      text,
      v.pipe(
        v.number(),
        v.check((n: number) => Number.isSafeInteger(n), 'YAML rounds a number this long (or with a fraction): write the id in quotes, e.g. "1234567890123456789"'),
      ),
    ],
    'expected a string',
  ),
  v.transform(String), // after the union: a transform inside an option would hide the check's message
)

/** Lower-case letters, digits, `-` and `_`: safe in a URL path and a file name. */
export const routeName = v.pipe(
  text,
  v.regex(/^[a-z0-9_-]{1,64}$/, 'a route name is 1 to 64 lower-case letters, digits, "-" or "_"'),
  v.check((name: string) => reservedNameProblem(name) === undefined, 'a route cannot be named __proto__, constructor or prototype: JavaScript objects reserve them'),
)

const skillName = v.pipe(
  text,
  v.check((s) => s.length > 0 && !/[\\/]|\.\./.test(s), 'a skill name must not contain "/", "\\" or ".."'),
)

/** One route under `platforms.webhook.extra.routes.<name>`. */
export const routeSchema = v.strictObject({
  secret: v.optional(v.union([text, v.pipe(textList, v.minLength(1, 'list at least one secret'))], 'expected a string or a list of strings')),
  events: v.optional(textList, []),
  prompt: v.optional(text),
  skills: v.optional(v.array(skillName), []),
  deliver: v.optional(text, 'log'),
  deliver_extra: v.optional(v.record(text, idText), {}),
  silent_outputs: v.optional(textList, []),
  rate_limit: v.optional(integer(1)),
  description: v.optional(text),
})

const webhookExtraSchema = v.strictObject({
  host: v.optional(nonBlank('the address to listen on, e.g. 127.0.0.1 (this machine only) or 0.0.0.0'), '0.0.0.0'),
  port: v.optional(integer(0, 65535), 8644),
  secret: v.optional(v.union([text, textList], 'expected a string or a list of strings')),
  rate_limit: v.optional(integer(1), 30),
  max_body_bytes: v.optional(integer(1), 1_048_576),
  headers_timeout_seconds: v.optional(integer(1), 10),
  request_timeout_seconds: v.optional(integer(1), 30),
  shutdown_grace_seconds: v.optional(integer(0), 30),
  // every request's unverified body bytes together; past it (or max_connections), 503 at once
  max_unverified_bytes: v.optional(integer(1), 64 * 1_048_576),
  max_connections: v.optional(integer(1), 1000),
  // whether X-Forwarded-For names the client (logs only): false, true, or the proxies' addresses and subnets
  trust_proxy: v.optional(
    v.union([
      boolean,
      v.pipe(textList, v.rawCheck(({ dataset, addIssue }) => {
        const problem = dataset.typed ? trustListProblem(dataset.value) : undefined
        if (problem !== undefined) addIssue({ message: `${problem}; expected addresses or subnets (10.0.0.1, 10.0.0.0/8, ::1) or loopback, linklocal, uniquelocal` })
      })),
    ], 'expected true, false, or a list of proxy addresses and subnets'),
    false,
  ),
  subscriptions_file: v.optional(text),
  routes: v.optional(v.record(routeName, routeSchema), {}),
})

const webhookSchema = v.strictObject({
  enabled: v.optional(boolean, true),
  extra: v.optional(webhookExtraSchema, {}),
})

/** `agent:`: which runner answers, and its bounds. Runner-specific keys sit beside the common ones. */
export const agentSchema = v.strictObject({
  runner: v.optional(text, 'echo'),
  timeout_seconds: v.optional(integer(1), 600),
  concurrency: v.optional(integer(1, 256), 4),
  max_queue: v.optional(integer(1), 1000),
  max_output_bytes: v.optional(integer(1), 1_048_576),
  // where the agent, its commands and gh run: a folder of their own (a private temporary one by default)
  workdir: v.optional(text),
  // command runner
  command: v.optional(v.pipe(textList, v.minLength(1, 'give the program to run, e.g. ["claude", "-p"]'))),
  // openai runner
  base_url: v.optional(text),
  api_key: v.optional(text),
  model: v.optional(text),
  system: v.optional(text),
  max_steps: v.optional(integer(1, 100), 8),
  max_commands_per_reply: v.optional(integer(1, 64), 4),
  allow_commands: v.optional(v.array(v.union([text, v.pipe(textList, v.minLength(1))], 'expected a command prefix: "gh pr diff" or ["gh", "pr", "diff"]')), []),
  command_timeout_seconds: v.optional(integer(1, 3600), 60),
  max_tool_output_bytes: v.optional(integer(1), 65_536),
})

/** Keys every chat platform has: `api_base` defaults to the public service, `timeout_seconds` bounds one request. */
const chatPlatform = <T extends v.ObjectEntries>(entries: T) =>
  v.strictObject({
    enabled: v.optional(boolean, false),
    home_channel: v.optional(idText),
    api_base: v.optional(text),
    timeout_seconds: v.optional(integer(1, 600), 30),
    ...entries,
  })

/** Delivery platforms beside the webhook one. */
export const platformsSchema = v.strictObject({
  webhook: v.optional(webhookSchema, {}),
  github: v.optional(
    v.strictObject({ gh_path: v.optional(nonBlank('the gh executable, e.g. gh or /usr/local/bin/gh'), 'gh'), timeout_seconds: v.optional(integer(1), 60) }),
    {},
  ),
  telegram: v.optional(chatPlatform({ token: v.optional(text) })),
  discord: v.optional(chatPlatform({ token: v.optional(text) })),
  slack: v.optional(chatPlatform({ token: v.optional(text) })),
  signal: v.optional(chatPlatform({ account: v.optional(text) })),
  sms: v.optional(
    chatPlatform({ account_sid: v.optional(text), auth_token: v.optional(text), from: v.optional(text) }),
  ),
})

/**
 * `state:`: where accepted jobs, the de-dup window and the jobs view live. SQLite by default, so a restart
 * loses nothing acknowledged; `memory` for tests and embedding.
 */
export const stateSchema = v.strictObject({
  driver: v.optional(v.picklist(['sqlite', 'memory'], 'expected sqlite or memory'), 'sqlite'),
  path: v.optional(nonBlank('the state database file, e.g. .hookpilot/state.db'), '.hookpilot/state.db'),
  sync: v.optional(v.picklist(['normal', 'full'], 'expected normal (survives a killed process) or full (survives power loss)'), 'normal'),
  keep_done_hours: v.optional(integer(1), 24),
  keep_failed_days: v.optional(integer(1), 7),
})

/** The whole `config.yaml`. */
export const configSchema = v.strictObject({
  agent: v.optional(agentSchema, {}),
  state: v.optional(stateSchema, {}),
  skills_dir: v.optional(text, './skills'),
  log_level: v.optional(v.picklist(['debug', 'info', 'warn', 'error'], 'expected debug, info, warn or error'), 'info'),
  log_format: v.optional(v.picklist(['text', 'json'], 'expected text (for people) or json (one object a line, for log systems)'), 'text'),
  platforms: v.optional(platformsSchema, {}),
})

/** The configuration as written (every key optional, numbers may be strings). */
export type HookpilotConfigInput = v.InferInput<typeof configSchema>
/** The configuration after validation, defaults filled in. */
export type HookpilotConfig = v.InferOutput<typeof configSchema>
/** One route as written in the configuration. */
export type RouteConfig = v.InferOutput<typeof routeSchema>
/** `state:` after validation. */
export type StateConfig = v.InferOutput<typeof stateSchema>
/** `agent:` after validation. */
export type AgentConfig = v.InferOutput<typeof agentSchema>
