/**
 * Composing a gateway without starting it: the plugins set up into a container of its own, the slots filled,
 * and the checks that need them (every route's target, the runner `agent.runner` names, the backend
 * `state.driver` names) made together, so every problem is reported at once. `buildGateway` starts what this
 * composed; `hookpilot check` stops here.
 */
import type { HookpilotConfig } from '../config/config.js'
import { createScope, type Scope } from './container.js'
import { ConfigError, type ConfigIssue } from '../errors.js'
import { gatherIssues } from '../config/gather-issues.js'
import type { StateBackend } from '../jobs/state-backend.js'
import type { PluginDefinition } from '../plugin-api/definition.js'
import { setupPlugins, type SetUp } from '../plugin-api/setup.js'
import type { GatewayPlugin } from '../plugin-api/plugin.js'
import type { SecretSet } from '../secrets/secret-set.js'
import { subscriptionsPath } from '../routes/subscriptions/index.js'
import { TOKENS } from './tokens.js'
import { agentWorkdir } from './workdir.js'
import type { AgentRunner, DeliveryTarget, Logger, Route } from '../types.js'
import { checkRoutes, selectRunner, targetMap } from './wiring.js'

/** What a gateway is composed of: plugin definitions (set up from the configuration) and ready plugin objects. */
export interface Composition {
  /** Set up first, in order (the built-ins, then yours); then the configuration's `plugins:` entries. */
  readonly definitions: readonly PluginDefinition[]
  /** Registered after them, in order: a one-implementation slot takes the last value. */
  readonly plugins: readonly GatewayPlugin[]
}

/** What composing needs besides the configuration and the plugins. */
export interface ComposeBase {
  readonly baseDir: string
  readonly log: Logger
  /** Every secret the gateway knows: fed with the configuration's and the plugins' secret options here. */
  readonly secrets: SecretSet
}

/** A composed, not yet started, gateway. */
export interface Composed {
  readonly scope: Scope
  readonly plugins: readonly GatewayPlugin[]
  readonly setUp: SetUp
  readonly targets: ReadonlyMap<string, DeliveryTarget>
  readonly runner: AgentRunner
  readonly state: StateBackend
}

/** Composes; throws one ConfigError with every problem (and disposes what it made). */
export async function compose(config: HookpilotConfig, composition: Composition, routes: readonly Route[], base: ComposeBase): Promise<Composed> {
  const scope = createScope()
  scope.provide(TOKENS.logger, base.log)
  scope.provide(TOKENS.clock, Date.now)
  try {
    const issues: ConfigIssue[] = []
    // The programs the gateway runs work in a folder of their own, never beside config.yaml and its secrets.
    const subscriptions = subscriptionsPath(config, base.baseDir)
    const keepOut = [base.baseDir, ...(subscriptions === undefined ? [] : [subscriptions])]
    const workdir = gatherIssues(() => agentWorkdir(config.agent.workdir, base.baseDir, keepOut), issues)
    if (!workdir) throw new ConfigError(issues)
    const secrets = base.secrets
    const setUp = await setupPlugins(config, composition.definitions, {
      baseDir: base.baseDir, resources: scope.resources, log: base.log, workdir: workdir.path, redact: secrets.redact,
      childEnv: (values) => {
        secrets.set('config', values)
        return secrets.childEnv()
      },
    })
    const plugins = [workdir.plugin, ...setUp.plugins, ...composition.plugins]
    for (const plugin of plugins) register(scope, plugin)
    const targets = targetMap(scope.resolveAll(TOKENS.deliveryTargets))
    const choices = (key: string, section: string) =>
      composition.definitions.filter((d) => d.selectedBy?.key === key && d.section === section).map((d) => d.selectedBy?.value ?? '')
    const runner = gatherIssues(() => selectRunner(config, scope.resolveAll(TOKENS.agentRunners), choices('runner', 'agent')), issues)
    gatherIssues(() => checkRoutes(routes, targets, setUp.hints), issues)
    const state = plugins.findLast((p) => p.state)?.state
    if (!state) {
      issues.push({ path: 'state.driver', message: `no state backend named "${config.state.driver}"; the backends here are: ${choices('driver', 'state').join(', ')} (a plugin can add one)` })
    }
    if (issues.length > 0 || !runner || !state) throw new ConfigError(issues)
    return { scope, plugins, setUp, targets, runner, state }
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
  if (plugin.agentRunner) scope.add(TOKENS.agentRunners, plugin.agentRunner)
  for (const filter of plugin.eventFilters ?? []) scope.add(TOKENS.eventFilters, filter)
  for (const target of plugin.deliveryTargets ?? []) scope.add(TOKENS.deliveryTargets, target)
}
