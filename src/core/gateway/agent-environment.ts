/**
 * The agent's environment per job: plugins that mint credentials for one event (a GitHub App's installation
 * token, scoped to the event's repository) are asked right before each run, and what they return reaches the
 * runner as `ctx.env`. The dispatcher knows the job; the runner knows only the prompt. Binding the runner to
 * each leased job here keeps that knowledge where the job is, and a runner that starts programs applies the
 * variables with {@link runEnvironment}.
 */
import { messageOf } from '../errors.js'
import type { JobWorker, LeasedJob } from '../jobs/state-backend.js'
import type { AgentEnvironment, AgentEnvironmentSource, AgentRunner } from '../types.js'

/**
 * `runner`, whose runs for `leased` get every source's variables (applied in order, a later one winning). A
 * source that fails fails the run before the agent starts: an agent without its token could not do its work,
 * and must not fall back to another credential.
 */
export function withAgentEnvironment(runner: AgentRunner, leased: LeasedJob, sources: readonly AgentEnvironmentSource[]): AgentRunner {
  const { job, payload } = leased
  const target = { route: job.route, event: job.event, deliveryId: job.deliveryId, payload }
  return {
    ...runner,
    run: async (input, ctx) => {
      let env: AgentEnvironment = { ...ctx.env }
      try {
        for (const source of sources) env = { ...env, ...(await source(target, { signal: ctx.signal, log: ctx.log })) }
      } catch (err) {
        return { ok: false, reason: `the agent's environment could not be made: ${messageOf(err)}` }
      }
      return runner.run(input, { ...ctx, env })
    },
  }
}

/**
 * The queue's worker: `dispatcher(runner)`, or, when plugins give the agent an environment of its job's own,
 * a dispatcher bound per leased job to a runner with it. Bound per job, the worker keeps what the queue reads
 * of the dispatcher: its crash-loop budget, and `ended`.
 */
export function jobWorker(dispatcher: (runner: AgentRunner) => JobWorker, runner: AgentRunner, sources: readonly AgentEnvironmentSource[]): JobWorker {
  const worker = dispatcher(runner)
  if (sources.length === 0) return worker
  const bound = (leased: LeasedJob) => dispatcher(withAgentEnvironment(runner, leased, sources))(leased)
  return Object.assign(bound, { maxRuns: worker.maxRuns, ended: worker.ended })
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
