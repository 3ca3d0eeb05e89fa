/**
 * Startup checks that need the registered plugins: every route's target exists and accepts the route, and
 * `agent.runner` names a runner. Problems are reported all at once, with their config paths.
 */
import type { HookpilotConfig } from './config.js'
import { ConfigError, type ConfigIssue } from './errors.js'
import type { AgentRunner, DeliveryTarget, Route } from './types.js'

const PLATFORMS = ['github_comment', 'telegram', 'discord', 'slack', 'signal', 'sms'] as const

/** Targets by name and alias; a later target with a taken name replaces the earlier one. */
export function targetMap(targets: readonly DeliveryTarget[]): Map<string, DeliveryTarget> {
  const map = new Map<string, DeliveryTarget>()
  for (const target of targets) {
    for (const name of [target.name, ...(target.aliases ?? [])]) map.set(name, target)
  }
  return map
}

/**
 * The runner `agent.runner` names: the last registered with that name (a plugin's replaces a built-in).
 */
export function selectRunner(config: HookpilotConfig, runners: readonly AgentRunner[]): AgentRunner {
  const wanted = config.agent.runner
  const runner = runners.findLast((r) => r.name === wanted)
  if (runner) return runner
  const known = [...new Set(runners.map((r) => r.name))].join(', ') || 'none'
  throw new ConfigError([
    { path: 'agent.runner', message: `no agent runner named "${wanted}" (registered: ${known}); pass a plugin that provides it, or pick a built-in: echo, command, openai` },
  ])
}

/** Refuses routes whose target is missing or refuses them. */
export function checkRoutes(config: HookpilotConfig, routes: readonly Route[], targets: ReadonlyMap<string, DeliveryTarget>): void {
  const issues: ConfigIssue[] = []
  for (const route of routes) {
    const problem = routeProblem(config, route, targets)
    if (problem) issues.push({ path: `platforms.webhook.extra.routes.${route.name}.deliver`, message: problem })
  }
  if (issues.length > 0) throw new ConfigError(issues)
}

/** Why a route cannot deliver, or undefined when it can. Used for dynamic subscriptions too. */
export function routeProblem(config: HookpilotConfig, route: Route, targets: ReadonlyMap<string, DeliveryTarget>): string | undefined {
  const target = targets.get(route.deliver)
  if (!target) {
    const platform = (PLATFORMS as readonly string[]).includes(route.deliver) ? route.deliver : undefined
    if (platform && platform !== 'github_comment' && !isEnabled(config, platform)) {
      return `route "${route.name}" delivers to ${platform}, but platforms.${platform} is not enabled: set platforms.${platform}.enabled: true and its credentials`
    }
    const known = [...targets.keys()].sort().join(', ')
    return `route "${route.name}" delivers to "${route.deliver}", which no plugin provides (available: ${known})`
  }
  return target.checkRoute?.(route)
}

function isEnabled(config: HookpilotConfig, platform: string): boolean {
  const block = (config.platforms as Record<string, { enabled?: boolean } | undefined>)[platform]
  return block?.enabled === true
}
