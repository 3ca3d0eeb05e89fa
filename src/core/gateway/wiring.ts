/**
 * Startup checks that need the registered plugins: every route's target exists and accepts the route, and
 * `agent.runner` names a runner. Problems are reported all at once, with their config paths. The core names
 * no target and no runner: what exists is what the plugins registered, and a target a plugin could provide
 * but did not (a disabled platform) comes with the plugin's own hint.
 */
import type { HookpilotConfig } from '../config/schema.js'
import { didYouMean } from '../config/keys.js'
import { ConfigError, type ConfigIssue } from '../errors.js'
import { routeProblem } from '../routes/route-problem.js'
import type { StateBackend } from '../jobs/lifecycle/state-backend.js'
import type { AgentRunner, DeliveryTarget, Route } from '../types.js'

/**
 * The runner `agent.runner` names: the last registered with that name (a plugin's replaces a built-in).
 */
export function selectRunner(config: HookpilotConfig, runners: readonly AgentRunner[], choices: readonly string[] = []): AgentRunner {
  const wanted = config.agent.runner
  const runner = runners.findLast((r) => r.name === wanted)
  if (runner) return runner
  const known = [...new Set([...choices, ...runners.map((r) => r.name)])]
  throw new ConfigError([
    { path: 'agent.runner', message: `no agent runner named "${wanted}"${didYouMean(wanted, known)}; the runners here are: ${known.join(', ') || 'none'} (a plugin can add one)` },
  ])
}

/** Refuses routes whose target is missing or refuses them. */
export function checkRoutes(
  routes: readonly Route[],
  targets: ReadonlyMap<string, DeliveryTarget>,
  hints: ReadonlyMap<string, string> = new Map(),
  pathOf: (route: Route) => string = (route) => `platforms.webhook.extra.routes.${route.name}.deliver`,
): void {
  const issues: ConfigIssue[] = []
  for (const route of routes) {
    const problem = routeProblem(route, targets, hints)
    if (problem) issues.push({ path: pathOf(route), message: problem })
  }
  if (issues.length > 0) throw new ConfigError(issues)
}

/**
 * Routes that would post an echo of their prompt where people read it: with the `echo` runner (the default),
 * a route without `prompt:` posts the whole webhook payload as a pull-request comment or a chat message.
 * Said loudly by `serve` and `check`; the log target is fine (that is what the echo runner is for).
 */
export function echoWarnings(runner: AgentRunner, routes: readonly Route[], targets: ReadonlyMap<string, DeliveryTarget>): string[] {
  if (!runner.echoesPrompt) return []
  return routes
    .filter((route) => targets.get(route.deliver)?.publishes === true)
    .map((route) => `route "${route.name}" delivers to ${route.deliver} with the ${runner.name} runner, which answers with its prompt: ` +
      `it would post ${route.prompt === undefined ? 'the whole webhook payload' : 'its prompt'}, not a review. Set agent.runner to a real agent (command or openai).`)
}

/**
 * Refuses routes whose target keeps notes for them (`notesNeeded`: incremental reviews remember the last reviewed
 * head) when the state backend keeps none: such a route would start and then fail every delivery.
 */
export function checkNotes(routes: readonly Route[], targets: ReadonlyMap<string, DeliveryTarget>, state: StateBackend, driver: string): void {
  if (state.notes !== undefined) return
  const issues: ConfigIssue[] = routes.flatMap((route) => {
    const why = targets.get(route.deliver)?.notesNeeded?.(route)
    return why === undefined ? [] : [{
      path: `platforms.webhook.extra.routes.${route.name}.deliver_extra`,
      message: `route "${route.name}" needs notes in the state store (${why}), but the ${state.name} backend (state.driver: ${driver}) keeps none: use a backend that keeps notes (every built-in one: memory, sqlite, redis, postgres) or turn them off for this route`,
    }]
  })
  if (issues.length > 0) throw new ConfigError(issues)
}
