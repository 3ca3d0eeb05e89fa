/**
 * The one composition root: the configuration's plugins set up into a container of the gateway's own, their
 * slots filled, and the checks that need them (every route's target, the runner `agent.runner` names, the
 * backend `state.driver` names) made together, so every problem is reported at once. `hookpilot serve`,
 * `hookpilot check`, the admin commands and `hookpilot/testing` all compose through here. For a gateway that
 * serves, {@link composeRuntime} then builds and starts the whole runtime graph (the route registry, the
 * pipeline, the dispatcher, the intake, the request flow); the `Gateway` object (gateway.ts) only serves it.
 *
 * The container is loaded here, when a gateway is composed, so `import 'hookpilot'` alone leaves the global
 * `Reflect` as it was. Whatever the slots end up holding reaches every plugin through its setup context: the
 * logger and the clock a plugin sets up are the ones every other plugin and the state backend use.
 */
import { resolve } from 'node:path'
import type { HookpilotConfig } from '../config/schema.js'
import { configSource } from '../plugin-api/load-config.js'
import { staticRoutes } from '../routes/static-routes.js'
import { ConfigError, GatewayError, type ConfigIssue } from '../errors.js'
import { gatherIssues, gatherIssuesAsync } from '../config/gather-issues.js'
import { createEvents } from '../events.js'
import { createBodyBudget, type BodyBudget } from '../http/body-budget.js'
import { clientAddressResolver } from '../http/client-address.js'
import { createFlow, type Flow } from '../http/flow.js'
import { createDispatcher, workerOf } from '../dispatch/dispatcher.js'
import { priceTable } from '../config/costs-schema.js'
import { budgetRules, createBudgets, hasLimits, type Budgets } from '../dispatch/budgets.js'
import { createModelLimits } from '../dispatch/model-limits.js'
import type { ModelLimits } from '../types.js'
import { scheduleOf } from '../jobs/lifecycle/retry-schedule.js'
import type { StateBackend } from '../jobs/lifecycle/state-backend.js'
import { createLogger } from '../log/logger.js'
import { redactingLogger } from '../log/redacting-logger.js'
import { createIntake } from '../pipeline/intake.js'
import { createPipeline } from '../pipeline/pipeline.js'
import { createCommandIntake } from '../policy/command-intake.js'
import { createPolicyGate } from '../policy/gate.js'
import { policyRouteIssues } from '../policy/route-checks.js'
import type { PluginDefinition } from '../plugin-api/definition.js'
import { setupPlugins, type SetUp } from '../plugin-api/setup.js'
import type { GatewayPlugin, PluginRoute } from '../plugin-api/gateway-plugin.js'
import { createRouteRegistry } from '../routes/route-registry.js'
import type { MutableRouteTable, RouteTable } from '../routes/route-table.js'
import type { SubscriptionSource } from '../routes/subscriptions/source.js'
import type { SubscriptionStore } from '../routes/subscriptions/subscription-store.js'
import { fileSubscriptionStore, subscriptionsPath } from '../routes/subscriptions/index.js'
import { createSecretSet, type SecretSet } from '../secrets/secret-set.js'
import { jobEnvironment } from '../agents/setup/agent-environment.js'
import type { Scope } from './container.js'
import { startAll, type Started } from './lifecycle.js'
import { startInOrder } from './startup.js'
import { TOKENS } from './tokens.js'
import { agentWorkdir } from '../agents/setup/workdir.js'
import { resolveAgentUser } from '../agents/agent-user.js'
import { resolveAgentSandbox, sandboxOptions } from '../agents/setup/agent-sandbox.js'
import type { AgentRunner, Clock, DeliveryTarget, EventFilter, Logger, RateLimiter, Route, Source } from '../types.js'
import { checkNotes, checkRoutes, echoWarnings, selectRunner } from './wiring.js'
import { didYouMean } from '../config/keys.js'
import { targetMap } from '../routes/route-problem.js'
import { preflight } from './preflight.js'

/** What a gateway is composed of: plugin definitions (set up from the configuration) and ready plugin objects. */
export interface Composition {
  /** Set up first, in order (the built-ins, then yours); then the configuration's `plugins:` entries. */
  readonly definitions: readonly PluginDefinition[]
  /** Registered after them, in order: a one-implementation slot takes the last value. */
  readonly plugins: readonly GatewayPlugin[]
}

/** What composing needs besides the configuration and the plugins. */
export interface ComposeOptions {
  readonly baseDir: string
  /** The logger until a plugin provides one (the configuration's `log_level` and `log_format`). */
  readonly log: Logger
  /** Every secret the gateway knows: fed with the configuration's and the plugins' secret options here. */
  readonly secrets: SecretSet
  /** The routes to check against the targets (static ones; an admin open checks none). */
  readonly routes: readonly Route[]
  /**
   * `serve` (the default) composes a gateway to run; `admin` composes for a command beside a running one: only
   * the definitions `only` keeps are set up, and nothing about runners, routes or the agents' folder is checked.
   */
  readonly role?: 'serve' | 'admin' | undefined
  readonly only?: ((definition: PluginDefinition) => boolean) | undefined
}

/** What the slots hold once every plugin is registered. */
export interface Slots {
  /** The last plugin's logger (else the configuration's), with every known secret redacted from each line. */
  readonly log: Logger
  readonly clock: Clock
  readonly sources: readonly Source[]
  readonly state: StateBackend | undefined
  readonly rateLimiter: RateLimiter | undefined
  readonly subscriptions: SubscriptionStore | undefined
  readonly filters: readonly EventFilter[]
  readonly targets: ReadonlyMap<string, DeliveryTarget>
  readonly runners: readonly AgentRunner[]
}

/** A composed, not yet started, gateway. */
export interface Composed {
  readonly scope: Scope
  /** Every plugin, in registration order (the set-up ones, then the objects given). */
  readonly plugins: readonly GatewayPlugin[]
  readonly setUp: SetUp
  readonly slots: Slots
}

/** A composed gateway that can serve: it has a runner and a state backend. */
export interface Servable extends Composed {
  readonly runner: AgentRunner
  readonly state: StateBackend
  /** What is valid but almost certainly not meant (the echo runner posting to a pull request): said at start. */
  readonly warnings: readonly string[]
}

/** A logger whose lines go to whatever `target()` is at the time of each line. */
function forwarding(target: () => Logger): Logger {
  return {
    debug: (message, fields) => target().debug(message, fields),
    info: (message, fields) => target().info(message, fields),
    warn: (message, fields) => target().warn(message, fields),
    error: (message, fields) => target().error(message, fields),
  }
}

/**
 * Composes; throws one ConfigError with every problem (and disposes what it made).
 *
 * @example
 * ```ts
 * const composed = await compose(config, { definitions: BUILTIN_PLUGINS, plugins: [] }, { baseDir, log, secrets, routes })
 * ```
 */
export async function compose(config: HookpilotConfig, composition: Composition, options: ComposeOptions & { role?: 'serve' }): Promise<Servable>
export async function compose(config: HookpilotConfig, composition: Composition, options: ComposeOptions): Promise<Composed>
export async function compose(config: HookpilotConfig, composition: Composition, options: ComposeOptions): Promise<Composed> {
  const { createScope } = await import('./container.js')
  const scope = createScope()
  const serve = options.role !== 'admin'
  const { secrets } = options
  scope.provide(TOKENS.logger, options.log)
  scope.provide(TOKENS.clock, Date.now)
  // Plugins are set up before the slots are final (a plugin may provide the logger or the clock): what they
  // receive forwards to the slots, so the last logger and clock reach every plugin and the state backend.
  // Once every plugin is registered the slots are fixed, and the forwarders stop asking the container.
  let fixed: { readonly log: Logger; readonly clock: Clock } | undefined
  const redacted = redactingLogger(forwarding(() => fixed?.log ?? scope.resolve(TOKENS.logger)), secrets.redact)
  const clock: Clock = () => (fixed?.clock ?? scope.resolve(TOKENS.clock))()
  try {
    const issues: ConfigIssue[] = []
    // The programs the gateway runs work in a folder of their own, never beside config.yaml and its secrets.
    const subscriptions = subscriptionsPath(config, options.baseDir)
    const keepOut = [options.baseDir, ...(subscriptions === undefined ? [] : [subscriptions])]
    // The agent's account is checked only for a gateway that runs agents (an admin command runs none).
    const agentUser = serve ? await gatherIssuesAsync(() => resolveAgentUser(config.agent.user, config.agent.group), issues) : undefined
    const workdir = serve ? gatherIssues(() => agentWorkdir(config.agent.workdir, options.baseDir, keepOut, agentUser), issues) : undefined
    const sandboxed = serve ? await gatherIssuesAsync(() => resolveAgentSandbox(config.agent.sandbox, sandboxOptions(config, options.baseDir, subscriptions, workdir?.path, agentUser)), issues) : undefined
    if (serve && !workdir) throw new ConfigError(issues, { source: configSource(config) })
    const definitions = options.only ? composition.definitions.filter(options.only) : composition.definitions
    const setUp = await setupPlugins(config, definitions, {
      baseDir: options.baseDir, resources: scope.resources, log: redacted, clock, workdir: workdir?.path ?? options.baseDir, redact: secrets.redact, agentUser,
      agentSandbox: sandboxed?.sandbox,
      childEnv: (values) => {
        secrets.set('config', values)
        return secrets.childEnv()
      },
    })
    const plugins = [...(workdir ? [workdir.plugin] : []), ...setUp.plugins, ...composition.plugins]
    for (const plugin of plugins) register(scope, plugin)
    sandboxed?.sandbox?.hide(plugins.flatMap((plugin) => plugin.privatePaths ?? []))
    fixed = { log: scope.resolve(TOKENS.logger), clock: scope.resolve(TOKENS.clock) }
    const slots: Slots = {
      log: redactingLogger(fixed.log, secrets.redact),
      clock: fixed.clock,
      sources: scope.has(TOKENS.sources) ? scope.resolve(TOKENS.sources) : [],
      state: scope.has(TOKENS.state) ? scope.resolve(TOKENS.state) : undefined,
      rateLimiter: scope.has(TOKENS.rateLimiter) ? scope.resolve(TOKENS.rateLimiter) : undefined,
      subscriptions: scope.has(TOKENS.subscriptions) ? scope.resolve(TOKENS.subscriptions) : undefined,
      filters: scope.resolveAll(TOKENS.eventFilters),
      targets: targetMap(scope.resolveAll(TOKENS.deliveryTargets)),
      runners: scope.resolveAll(TOKENS.agentRunners),
    }
    if (!serve) return { scope, plugins, setUp, slots }
    const choices = (key: string, section: string) =>
      composition.definitions.filter((d) => d.selectedBy?.key === key && d.section === section).map((d) => d.selectedBy?.value ?? '')
    const runner = gatherIssues(() => selectRunner(config, slots.runners, choices('runner', 'agent')), issues)
    const pluginRoutes = plugins.flatMap((p) => p.routes ?? [])
    gatherIssues(() => checkRoutes(options.routes, slots.targets, setUp.hints), issues)
    gatherIssues(() => checkRoutes(pluginRoutes, slots.targets, setUp.hints, (r) => `${(r as PluginRoute).configPath}.deliver`), issues)
    const allRoutes = [...options.routes, ...pluginRoutes]
    const outside = await preflight(runner, allRoutes, slots.targets, plugins)
    issues.push(...outside.issues)
    if (slots.state) gatherIssues(() => checkNotes(allRoutes, slots.targets, slots.state!, config.state.driver), issues)
    if (!slots.state) {
      const drivers = choices('driver', 'state')
      issues.push({ path: 'state.driver', message: `no state backend named "${config.state.driver}"${didYouMean(config.state.driver, drivers)}; the backends here are: ${drivers.join(', ')} (a plugin can add one)` })
    }
    if (slots.state) issues.push(...policyRouteIssues(options.routes, slots.targets, slots.state.notes !== undefined, config.state.driver))
    if (issues.length > 0 || !runner || !slots.state) throw new ConfigError(issues, { source: configSource(config) })
    const warnings = [...(sandboxed?.warning === undefined ? [] : [sandboxed.warning]), ...echoWarnings(runner, allRoutes, slots.targets), ...outside.warnings]
    const servable: Servable = { scope, plugins, setUp, slots, runner, state: slots.state, warnings }
    return servable
  } catch (err) {
    await scope.dispose()
    throw err
  }
}

function register(scope: Scope, plugin: GatewayPlugin): void {
  if (plugin.logger) scope.provide(TOKENS.logger, plugin.logger)
  if (plugin.clock) scope.provide(TOKENS.clock, plugin.clock)
  if (plugin.sources) scope.provide(TOKENS.sources, plugin.sources)
  if (plugin.state) scope.provide(TOKENS.state, plugin.state)
  if (plugin.rateLimiter) scope.provide(TOKENS.rateLimiter, plugin.rateLimiter)
  if (plugin.subscriptions) scope.provide(TOKENS.subscriptions, plugin.subscriptions)
  if (plugin.agentRunner) scope.add(TOKENS.agentRunners, plugin.agentRunner)
  for (const filter of plugin.eventFilters ?? []) scope.add(TOKENS.eventFilters, filter)
  for (const target of plugin.deliveryTargets ?? []) scope.add(TOKENS.deliveryTargets, target)
}

/** How a gateway is built besides its configuration and plugins. */
export interface BuildOptions {
  /** Where relative paths of a configuration (skills_dir, state.path) are resolved: the config file's folder, else cwd. */
  readonly baseDir?: string | undefined
  /**
   * Every secret the gateway knows (see {@link createSecretSet}): redacted from each log line, stored reason
   * and delivered answer, and kept from the programs it runs. The gateway adds its routes' secrets;
   * `createGateway` adds the configuration's.
   */
  readonly secrets?: SecretSet | undefined
}

/** A gateway's runtime, composed and started: what the `Gateway` object serves and closes. */
export interface Runtime {
  readonly config: HookpilotConfig
  /** The slots' logger (redacted) and clock. */
  readonly log: Logger
  readonly clock: Clock
  /** The routes the gateway answers over HTTP (static and subscribed). */
  readonly routes: MutableRouteTable
  /** The routes of sources that are not HTTP (a market watch's `market:<watch>`). */
  readonly watches: RouteTable
  readonly state: StateBackend
  readonly runner: AgentRunner
  /** One request through the request table; the adapters (node, fetch, `handle()`) are thin over it. */
  readonly flow: Flow
  /** The bytes all unverified bodies may hold at once (`max_unverified_bytes`). */
  readonly budget: BodyBudget
  /** The started plugins (the state backend first): their readiness, their signal, and closing them. */
  readonly lifecycle: Started
  /** Keeps the subscribed routes in step with the store; undefined when there is none. */
  readonly subscriptions: SubscriptionSource | undefined
  readonly scope: Scope
  /** From now on a new webhook is answered 503 `Shutting down` (the gateway is closing). */
  stopAccepting(): void
}

/**
 * Composes the plugins (see {@link compose}), starts them, builds the runtime graph over the slots, and starts
 * the queue once every route a stored job may name is back. Throws a ConfigError naming every route whose
 * target or runner is missing, and every plugin whose options are wrong.
 */
export async function composeRuntime(config: HookpilotConfig, composition: Composition, options: BuildOptions = {}): Promise<Runtime> {
  const extra = config.platforms.webhook.extra
  const baseDir = options.baseDir ?? process.cwd()
  const secrets = options.secrets ?? createSecretSet()
  const configured = staticRoutes(config)
  // The routes' secrets are known before any plugin is set up: the environment a plugin makes for its
  // programs (ctx.childEnv) keeps them out.
  const routeSecrets = (list: readonly Route[]) => secrets.set('routes', list.flatMap((r) => r.secrets))
  routeSecrets(configured)
  const { scope, plugins, setUp, slots, runner, state, warnings } = await compose(config, composition, {
    baseDir, secrets, routes: configured, log: createLogger({ level: config.log_level, format: config.log_format }),
  })
  // Whoever logs (a plugin's logger included), and whatever a line quotes (an agent's stderr, an API's error),
  // no known secret gets through: the slot's logger comes redacted.
  const { log, clock, targets } = slots
  // The level already says it is a warning: a `WARNING:` prefix read `WARN  WARNING: ...`.
  for (const warning of warnings) log.warn(warning)
  const events = createEvents(log)
  // Budgets and model limits live in the store's notes: a backend without them is refused before anything opens.
  let budgetBook: Budgets | undefined
  let limits: ModelLimits | undefined
  try {
    budgetBook = budgets(config, state)
    limits = modelLimits(config, state, clock)
  } catch (err) {
    await scope.dispose()
    throw err
  }
  // The state backend opens first (a bad state.path stops the start with what to change), then the plugins
  // that hold resources of their own; closing runs them in the reverse order, then disposes shared resources.
  const lifecycle = await startAll([state, ...plugins.filter((p) => p.state !== state)], log).catch(async (err: unknown) => {
    await scope.dispose()
    throw err
  })
  if (!slots.rateLimiter) throw new GatewayError('ERR_PLUGIN', 'Nothing provides a rate limiter: pass a plugin that does (the built-ins provide one).')
  const routes = createRouteRegistry({
    configured, sources: plugins.flatMap((p) => p.routes ?? []), targets, hints: setUp.hints, onChange: routeSecrets,
  })
  const admission = { dedup: state.dedup, limiter: slots.rateLimiter, queue: state.queue, log, clock, events }
  // Pull-request commands are acknowledged (and a pause kept) as they come, through their route's target.
  const commands = createCommandIntake({ targets, notes: state.notes, log, clock, signal: lifecycle.signal })
  const pipeline = createPipeline({ ...admission, sources: slots.sources, filters: slots.filters, signal: lifecycle.signal, commands })
  // Sources that are not HTTP (a market stream) admit their events past the request table's HTTP steps, to
  // their own routes only.
  const intake = createIntake(admission, routes.sources)
  // One dispatcher for every job; the runner and the job's own environment come with each try.
  const dispatcher = createDispatcher({
    routes,
    targets,
    log,
    clock,
    skillsDir: resolve(baseDir, config.skills_dir),
    timeoutMs: config.agent.timeout_seconds * 1000,
    retry: scheduleOf(config.delivery.retry),
    agentRetry: scheduleOf(config.agent.retry),
    events,
    redact: secrets.redact,
    // A target's follow-up job (the head moved during the run) is admitted as an event is.
    admission,
    notes: state.notes,
    policy: createPolicyGate({ notes: state.notes, jobs: state.jobs, log, clock }),
    prices: priceTable(config.costs),
    budgets: budgetBook,
    whenExceeded: config.costs.budgets?.when_exceeded,
    modelLimits: limits,
  })
  // A plugin that gives the agent credentials of its job's own (a GitHub App's installation token) needs the
  // job at run time: each leased job's environment is made from them.
  const environments = plugins.flatMap((p) => (p.agentEnvironment ? [p.agentEnvironment] : []))
  // Dynamic subscriptions: in a plugin's store (Redis), else in the file beside config.yaml (or where
  // subscriptions_file says); skipped entries are logged. A source that is not HTTP keeps its own there too.
  const subscriptionsFile = subscriptionsPath(config, options.baseDir)
  const store = slots.subscriptions ?? (subscriptionsFile === undefined ? undefined : fileSubscriptionStore(subscriptionsFile))
  // Every route a stored job may name is back before the queue leases (a restart loses no subscribed job).
  const subscriptions = await startInOrder({
    plugins, events, state, intake, sourceRoutes: routes.sources, store,
    subscriptions: { config, routes: routes.webhooks, targets, hints: setUp.hints, log },
    worker: workerOf(dispatcher, runner, (leased) => jobEnvironment(leased, environments)),
  })

  let closing = false
  const budget = createBodyBudget(extra.max_unverified_bytes)
  const flow = createFlow({
    routes: routes.webhooks,
    pipeline,
    maxBodyBytes: extra.max_body_bytes,
    budget,
    clientAddress: clientAddressResolver(extra.trust_proxy),
    log,
    clock,
    closing: () => closing,
    readiness: () => lifecycle.ready(),
    queueFull: async () => (await state.jobs.counts()).queued >= config.agent.max_queue,
    events,
    endpoints: plugins.flatMap((p) => p.endpoints ?? []),
  })
  return {
    config, log, clock, routes: routes.webhooks, watches: routes.sources, state, runner, flow, budget, lifecycle, subscriptions, scope,
    stopAccepting: () => {
      closing = true
    },
  }
}

/**
 * The budgets `costs.budgets` sets, over the state store's notes, where every instance on the store sees every
 * other's reservations. A backend without notes cannot keep them: refused when the config sets a budget, else
 * undefined. With notes, the budgets exist even when the config sets none: a repository's policy file may (a run
 * no budget applies to reserves nothing and writes nothing).
 */
function budgets(config: HookpilotConfig, state: StateBackend): Budgets | undefined {
  const rules = budgetRules(config.costs, config.agent.timeout_seconds * 1000)
  if (state.notes === undefined) {
    if (!hasLimits(rules)) return undefined
    throw new ConfigError([{ path: 'costs.budgets', message: `the state backend (state.driver: ${config.state.driver}) keeps no notes, where budgets keep their spend: use one that does (every built-in backend: memory, sqlite, redis, postgres), or remove costs.budgets` }])
  }
  return createBudgets(state.notes, rules)
}

/**
 * The model API's limits `costs.model_limits` sets, paced in the state store's notes so that every instance on
 * the store keeps them together; undefined when none is set. A backend without notes cannot: refused.
 */
function modelLimits(config: HookpilotConfig, state: StateBackend, clock: Clock): ModelLimits | undefined {
  const entries = Object.entries(config.costs.model_limits)
  if (entries.length === 0) return undefined
  if (state.notes === undefined) {
    throw new ConfigError([{ path: 'costs.model_limits', message: `the state backend (state.driver: ${config.state.driver}) keeps no notes, where the limits are paced: use one that does (every built-in backend: memory, sqlite, redis, postgres), or remove costs.model_limits` }])
  }
  const limits = Object.fromEntries(entries.map(([model, l]) => [model, { requestsPerWindow: l.requests_per_minute, tokensPerWindow: l.tokens_per_minute, windowMs: l.window_seconds * 1000 }]))
  return createModelLimits(state.notes, limits, clock)
}
