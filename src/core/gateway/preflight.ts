/**
 * The startup checks of what the gateway needs outside itself: the runner's (its program is on PATH), every
 * target's that a route delivers to (`gh` there and logged in), and the plugins' own (a GitHub App's key and
 * id). Problems join the configuration's (the start is refused, `hookpilot check` exits 1); warnings are said
 * loudly by `serve` and `check`. Run together, so a slow check (`gh auth status`) costs the start its own time
 * once.
 */
import type { ConfigIssue } from '../errors.js'
import type { GatewayPlugin } from '../plugin-api/gateway-plugin.js'
import type { AgentRunner, DeliveryTarget, Route, StartupFinding } from '../types.js'

/** What the startup checks found: problems (as configuration issues) and warnings. */
export interface Preflight {
  readonly issues: readonly ConfigIssue[]
  readonly warnings: readonly string[]
}

/** Runs the runner's check, each plugin's, and the check of each target some route uses, with those routes. */
export async function preflight(
  runner: AgentRunner | undefined,
  routes: readonly Route[],
  targets: ReadonlyMap<string, DeliveryTarget>,
  plugins: readonly GatewayPlugin[] = [],
): Promise<Preflight> {
  const used = new Map<DeliveryTarget, Route[]>()
  for (const route of routes) {
    const target = targets.get(route.deliver)
    if (target?.preflight) used.set(target, [...(used.get(target) ?? []), route])
  }
  const checks = [
    ...(runner?.preflight ? [guarded(runner.name, () => runner.preflight!())] : []),
    ...[...used].map(([target, its]) => guarded(target.name, () => target.preflight!(its))),
    ...plugins.flatMap((plugin) => (plugin.preflight ? [guarded(plugin.name, () => plugin.preflight!())] : [])),
  ]
  const findings = (await Promise.all(checks)).flat()
  return {
    issues: findings.filter((f) => f.severity === 'problem').map(({ path, message }) => ({ path, message })),
    warnings: findings.filter((f) => f.severity === 'warning').map((f) => `${f.path}: ${f.message}`),
  }
}

/** A check that throws did not find a problem: it is said as a warning, and the start goes on. */
async function guarded(name: string, check: () => Promise<readonly StartupFinding[]>): Promise<readonly StartupFinding[]> {
  try {
    return await check()
  } catch (err) {
    return [{ severity: 'warning', path: name, message: `the startup check of ${name} failed: ${err instanceof Error ? err.message : String(err)}` }]
  }
}
