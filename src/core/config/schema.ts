/**
 * The valibot schema of the core's part of `config.yaml`: the webhook platform and its routes, the agent's
 * bounds, the state driver, logging and the plugin list. Plugins own the other sections (`platforms.telegram`,
 * the command runner's `agent.command`, sqlite's `state.path`) and validate them with their own schemas.
 * Unknown keys are reported by the walk in config-keys.ts (every one, with a suggestion); numbers also accept
 * digit strings because `${PORT:-8644}` interpolates to a string.
 */
import * as v from 'valibot'
import { boolean, idText, integer, nonBlank, text, textList } from './schema-kit.js'
import { trustListProblem } from './trust-list.js'
import { costsSchema } from './costs-schema.js'
import { reservedNameProblem } from './reserved-names.js'
import { routePolicySchema } from './route-policy.js'
import { DEFAULT_AGENT_RETRY, DEFAULT_DELIVERY_RETRY, type RetrySchedule } from '../jobs/lifecycle/retry-schedule.js'

export { boolean, integer } from './schema-kit.js'

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
  actions: v.optional(textList, []),
  prompt: v.optional(text),
  skills: v.optional(v.array(skillName), []),
  deliver: v.optional(text, 'log'),
  deliver_extra: v.optional(v.record(text, idText), {}),
  silent_outputs: v.optional(textList, []),
  rate_limit: v.optional(integer(1)),
  // what a verified request over rate_limit gets; unset: the sender's way (GitLab defers, the others reject)
  over_limit: v.optional(v.picklist(['reject', 'defer'], 'expected reject (answer 429) or defer (store it, run it when the limit allows)')),
  description: v.optional(text),
  concurrency: v.optional(v.strictObject({
    key: v.pipe(text, v.check((key: string) => /\{[A-Za-z0-9_.]+\}/.test(key), 'the key must name at least one payload field, e.g. "{repository.full_name}#{pull_request.number}"')),
    debounce_seconds: v.optional(integer(0, 86_400), 0),
    max_wait_seconds: v.optional(integer(0, 86_400), 300),
    cancel_in_progress: v.optional(boolean, false),
  })),
  // repositories' policy files and pull-request commands (docs/policy.md)
  policy: v.optional(routePolicySchema),
  // jobs take turns by this key (a payload template: the repository, the installation), docs/costs.md
  fair_by: v.optional(v.pipe(text, v.check((key: string) => /\{[A-Za-z0-9_.]+\}/.test(key), 'fair_by must name at least one payload field, e.g. "{repository.full_name}" or "{installation.id}"'))),
  // a queued job not started this long after it was received ends skipped (expired) instead of running late
  start_within_seconds: v.optional(integer(1, 30 * 86_400)),
})

/** One route after validation (the configuration's or a subscription's). */
export type RouteConfig = v.InferOutput<typeof routeSchema>
/** One route as written. */
export type RouteConfigInput = v.InferInput<typeof routeSchema>
/**
 * The route schema as the configuration nests it, typed by its named input and output: spelled out five levels deep
 * in the configuration's declared type, it took `HookpilotConfig` past TypeScript's instantiation depth for anyone
 * importing it from the built package (TS2589).
 */
const namedRouteSchema: v.GenericSchema<RouteConfigInput, RouteConfig, v.InferIssue<typeof routeSchema>> = routeSchema

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
  // one client address's share of max_connections (a proxy trust_proxy names is not limited), and how long a
  // connection may stay silent before its first byte: neither may let one client shut the others out
  max_connections_per_client: v.optional(integer(1), 64),
  first_byte_timeout_seconds: v.optional(integer(1), 3),
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
  routes: v.optional(v.record(routeName, namedRouteSchema), {}),
})

const webhookSchema = v.strictObject({
  enabled: v.optional(boolean, true),
  extra: v.optional(webhookExtraSchema, {}),
})

/**
 * A retry schedule (`agent.retry`, `delivery.retry`): tries in all, the first wait and the longest one, in
 * seconds; each wait doubles from the first, with jitter. Defaults from `defaults`.
 */
function retrySchema(defaults: RetrySchedule) {
  return v.pipe(
    v.strictObject({
      attempts: v.optional(integer(1, 100), defaults.attempts),
      first_delay_seconds: v.optional(integer(1, 86_400), defaults.firstDelayMs / 1000),
      max_delay_seconds: v.optional(integer(1, 7 * 86_400), defaults.maxDelayMs / 1000),
    }),
    v.check((r) => r.max_delay_seconds >= r.first_delay_seconds, 'max_delay_seconds must be at least first_delay_seconds'),
  )
}

/**
 * `agent:`: which runner answers, and the bounds every run has. Runner plugins own their keys beside these
 * (`command` for the command runner; `base_url`, `model`, ... for openai).
 */
export const agentSchema = v.looseObject({
  runner: v.optional(nonBlank('the runner: echo, command, openai or a plugin\'s'), 'echo'),
  timeout_seconds: v.optional(integer(1), 600),
  concurrency: v.optional(integer(1, 256), 4),
  max_queue: v.optional(integer(1), 1000),
  max_output_bytes: v.optional(integer(1), 1_048_576),
  // where the agent, its commands and gh run: a folder of their own (a private temporary one by default)
  workdir: v.optional(text),
  // the account the agent and its commands run as (a name or a number; the gateway must run as root to switch)
  user: v.optional(nonBlank('the account the agent runs as, e.g. hookpilot-agent')),
  group: v.optional(nonBlank('the group the agent runs as; the user\'s own by default')),
  // a bubblewrap sandbox for every run where the machine can make one (auto), always (bubblewrap), or never (off)
  sandbox: v.optional(v.picklist(['auto', 'bubblewrap', 'off'], 'expected auto (a sandbox where bubblewrap works), bubblewrap (refuse to start without one) or off'), 'auto'),
  // false cuts the agent's network (the sandbox's own namespace, loopback only); needs the sandbox
  network: v.optional(boolean, true),
  // paths the sandboxed agent may read (read-only), relative to the config's folder: inside the hidden home, say
  sandbox_paths: v.optional(textList, []),
  // a failed or timed-out run (not an empty answer, not a configuration problem) is tried again on this schedule
  retry: v.optional(retrySchema(DEFAULT_AGENT_RETRY), {}),
})

/** `delivery:`: how every delivery target's passing failures (a 5xx, a 429, a network error) are retried. */
export const deliverySchema = v.strictObject({
  retry: v.optional(retrySchema(DEFAULT_DELIVERY_RETRY), {}),
})

/**
 * `state:`: which backend keeps accepted jobs, the de-dup window and the jobs view (SQLite by default, so a
 * restart loses nothing acknowledged). Backend plugins own their keys beside `driver` (`path`, `sync`, ...).
 */
export const stateSchema = v.looseObject({
  driver: v.optional(nonBlank('the state backend: sqlite, postgres, redis, memory or a plugin\'s'), 'sqlite'),
})

/** One entry of `plugins:`: a module to load and its options. */
export const pluginEntrySchema = v.strictObject({
  use: nonBlank('a path relative to the config file (./plugins/audit.mjs) or a package name'),
  with: v.optional(v.unknown()),
})

/** `platforms:`: the webhook platform (the core's); each delivery plugin owns its own block beside it. */
export const platformsSchema = v.looseObject({
  webhook: v.optional(webhookSchema, {}),
})

/** The whole `config.yaml` as far as the core knows it. */
export const configSchema = v.looseObject({
  agent: v.optional(agentSchema, {}),
  state: v.optional(stateSchema, {}),
  delivery: v.optional(deliverySchema, {}),
  skills_dir: v.optional(text, './skills'),
  log_level: v.optional(v.picklist(['debug', 'info', 'warn', 'error'], 'expected debug, info, warn or error'), 'info'),
  plugins: v.optional(v.array(pluginEntrySchema, 'expected a list of { use: <module>, with: <options> }'), []),
  log_format: v.optional(v.picklist(['text', 'json'], 'expected text (for people) or json (one object a line, for log systems)'), 'text'),
  platforms: v.optional(platformsSchema, {}),
  costs: v.optional(costsSchema, {}),
})

/** The configuration as written (every key optional, numbers may be strings). */
export type HookpilotConfigInput = v.InferInput<typeof configSchema>
/** The configuration after validation, defaults filled in. */
export type HookpilotConfig = v.InferOutput<typeof configSchema>
/** `state:` after validation: the driver, and the backend's own keys beside it. */
export type StateConfig = v.InferOutput<typeof stateSchema>
/** One `plugins:` entry. */
export type PluginEntry = v.InferOutput<typeof pluginEntrySchema>
/** `agent:` after validation. */
export type AgentConfig = v.InferOutput<typeof agentSchema>
