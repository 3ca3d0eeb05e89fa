/**
 * The jobs view `hookpilot jobs` works on: the state store the config names, opened the admin way (its store
 * only: no worker, no recovery), so it is safe to use while `hookpilot serve` runs.
 */
import type { HookpilotConfig } from '../core/config/schema.js'
import { GatewayError } from '../core/errors.js'
import type { JobsView } from '../core/jobs/lifecycle/jobs-view.js'
import { openState } from './state-access.js'

/** An open jobs view and how to close it. */
export interface OpenJobs {
  readonly jobs: JobsView
  /** Where the jobs live, for messages. */
  readonly where: string
  close(): Promise<void>
}

/** Opens the jobs view of `config` (relative paths from `baseDir`, the config file's folder). */
export async function openJobs(config: HookpilotConfig, baseDir: string): Promise<OpenJobs> {
  const { state } = config
  if (state.driver === 'memory') {
    throw new GatewayError(
      'ERR_STATE',
      'state.driver is memory: jobs live only inside the running gateway and cannot be listed from outside it. Use state.driver: sqlite (the default) to keep them.',
    )
  }
  const opened = await openState(config, baseDir)
  if (!opened) throw new GatewayError('ERR_STATE', `state.driver "${state.driver}" names no state backend hookpilot jobs can open.`)
  return { jobs: opened.state.jobs, where: opened.state.where ?? `state.driver ${state.driver}`, close: () => opened.close() }
}
