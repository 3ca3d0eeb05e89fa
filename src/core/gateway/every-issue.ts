/**
 * Every problem of a configuration in one run. Validation finds what the schemas see (unknown keys, wrong
 * values); composing finds what only the plugins see (a `deliver:` no target answers to, a target's missing
 * `deliver_extra`, an unknown runner or state driver). When validation fails, the part of the configuration
 * that still holds is composed too, and its problems join the first ones: `hookpilot check` and
 * `createGateway` report both kinds at once, each error naming the file.
 */
import type { HookpilotConfig } from '../config/schema.js'
import { partialConfig } from '../plugin-api/load-config.js'
import { staticRoutes } from '../routes/static-routes.js'
import { ConfigError } from '../errors.js'
import { keepNew } from '../config/salvage.js'
import { silentLogger } from '../log/logger.js'
import { createSecretSet } from '../secrets/secret-set.js'
import { compose, type Composition } from './compose.js'

/**
 * The error to throw for `error`: a ConfigError from validation gains the problems that composing the valid
 * rest of its configuration finds; any other error is answered as it is. Nothing is started: what composing
 * set up is disposed at once.
 */
export async function withEveryIssue(error: unknown, composition: Composition, baseDir: string): Promise<unknown> {
  const partial = partialConfig(error)
  if (!ConfigError.is(error) || partial === undefined) return error
  const composing = partial.config === undefined ? [] : await composeIssues(partial.config, composition, baseDir)
  // The salvage's own finds were sifted as they came; what composing finds is sifted against every path taken out.
  const added = [...keepNew(partial.found, error.issues, []), ...keepNew(composing, [...error.issues, ...partial.found], partial.removed)]
  return added.length === 0 ? error : new ConfigError([...error.issues, ...added], { source: error.source, cause: error.cause })
}

async function composeIssues(config: HookpilotConfig, composition: Composition, baseDir: string) {
  try {
    const composed = await compose(config, composition, { baseDir, log: silentLogger, secrets: createSecretSet(), routes: staticRoutes(config) })
    await composed.scope.dispose()
    return []
  } catch (err) {
    // Anything else (a plugin that cannot even be set up from what is left) is not this configuration's problem
    // to report twice: the first problems stand alone.
    return ConfigError.is(err) ? err.issues : []
  }
}
