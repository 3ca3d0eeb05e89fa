/**
 * The agent's environment per job: plugins that mint credentials for one event (a GitHub App's installation
 * token, scoped to the event's repository) are asked right before each run, and what they return reaches the
 * runner as `ctx.env`. The dispatcher knows the job; the runner knows only the prompt. The dispatcher is given
 * each leased job's environment with the try, and a runner that starts programs applies the variables with
 * {@link runEnvironment}.
 */
import type { JobEnvironment } from '../../dispatch/dispatcher.js'
import type { LeasedJob } from '../../jobs/lifecycle/state-backend.js'
import type { AgentEnvironment, AgentEnvironmentSource } from '../../types.js'

/**
 * The environment `sources` give the agent of `leased` (applied in order, a later one winning), or undefined
 * when no plugin gives one: its runs then get no `ctx.env`.
 */
export function jobEnvironment(leased: LeasedJob, sources: readonly AgentEnvironmentSource[]): JobEnvironment | undefined {
  if (sources.length === 0) return undefined
  const { job, payload } = leased
  const target = { route: job.route, event: job.event, deliveryId: job.deliveryId, payload }
  return async (ctx) => {
    let env: AgentEnvironment = {}
    for (const source of sources) env = { ...env, ...(await source(target, ctx)) }
    return env
  }
}

/**
 * `base` with `extra` applied: each string sets its variable, each `null` removes it.
 *
 * @example
 * ```ts
 * runEnvironment({ PATH: '/usr/bin', GITHUB_TOKEN: 'x' }, { GH_TOKEN: 'ghs_...', GITHUB_TOKEN: null })
 * // { PATH: '/usr/bin', GH_TOKEN: 'ghs_...' }
 * ```
 */
export function runEnvironment(base: NodeJS.ProcessEnv | undefined, extra: AgentEnvironment | undefined): NodeJS.ProcessEnv | undefined {
  if (extra === undefined || Object.keys(extra).length === 0) return base
  const env: NodeJS.ProcessEnv = { ...(base ?? process.env) }
  for (const [name, value] of Object.entries(extra)) {
    if (value === null) delete env[name]
    else env[name] = value
  }
  return env
}
