import { ConfigError, type ConfigIssue } from '../errors.js'

/**
 * Runs a factory that may refuse its configuration, moving a ConfigError's issues to `issues` (and answering
 * undefined) so that every problem of a configuration is reported at once rather than the first one only.
 */
export function gatherIssues<T>(make: () => T, issues: ConfigIssue[]): T | undefined {
  try {
    return make()
  } catch (error) {
    // A brand check: the factory may be a plugin's (a runner, a target's checkRoute) built against another copy.
    if (!ConfigError.is(error)) throw error
    issues.push(...error.issues)
    return undefined
  }
}

/** {@link gatherIssues} for a factory that answers later (one that asks the machine, as `agent.user` does). */
export async function gatherIssuesAsync<T>(make: () => Promise<T>, issues: ConfigIssue[]): Promise<T | undefined> {
  try {
    return await make()
  } catch (error) {
    if (!ConfigError.is(error)) throw error
    issues.push(...error.issues)
    return undefined
  }
}
