import { ConfigError, type ConfigIssue } from '../errors.js'

/**
 * Runs a factory that may refuse its configuration, moving a ConfigError's issues to `issues` (and answering
 * undefined) so that every problem of a configuration is reported at once rather than the first one only.
 */
export function gatherIssues<T>(make: () => T, issues: ConfigIssue[]): T | undefined {
  try {
    return make()
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    issues.push(...error.issues)
    return undefined
  }
}
