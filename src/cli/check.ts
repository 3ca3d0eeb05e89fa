/**
 * `hookpilot check`: validates a configuration without starting anything (no port, no state file, no agent):
 * every problem at once, the core's and every plugin's, with its path and a "did you mean" for typos; unset
 * environment variables; routes whose target is not enabled; an agent runner or a state backend that does not
 * exist. A good config gets a one-line summary.
 */
import { resolve } from 'node:path'
import { compose } from '../core/gateway/compose.js'
import { createSecretSet } from '../core/secrets/secret-set.js'
import { staticRoutes } from '../core/routes/static-routes.js'
import { silentLogger } from '../core/log/logger.js'
import { loadConfig } from '../index.js'
import { configDir } from '../core/gateway/gateway.js'
import { BUILTIN_PLUGINS } from '../plugins/builtins.js'
import { parse, UsageError } from './args.js'
import { checkPolicy } from './check-policy.js'
import type { Subcommand } from './io.js'

const HELP = `Usage: hookpilot check [--config FILE]
       hookpilot check --policy FILE

Checks a configuration the way "hookpilot serve" would, without starting anything, and reports every problem at
once (exit 1), or a one-line summary (exit 0). Environment variables count as serve would see them.

Options:
  -c, --config FILE   configuration file (default: ./config.yaml)
      --policy FILE   check a repository's policy file (.hookpilot.yml) instead, as the gateway reads it
  -h, --help          show this help
`

/** Checks the config; exit 0 with a summary, 1 with every problem. */
export const check: Subcommand = async (args, io) => {
  const { values, positionals } = parse(args, { config: { type: 'string', short: 'c', default: 'config.yaml' }, policy: { type: 'string' }, help: { type: 'boolean', short: 'h' } }, 'check')
  if (values.help) {
    io.stdout.write(HELP)
    return 0
  }
  if (values.policy !== undefined) {
    if (positionals.length > 0) throw new UsageError(`check takes no arguments (got ${positionals.join(' ')}); the policy file goes after --policy.`)
    return checkPolicy(values.policy, io)
  }
  if (positionals.length > 0) throw new UsageError(`check takes no arguments (got ${positionals.join(' ')}); the config file goes after --config.`)
  const path = resolve(io.cwd, values.config)
  const config = await loadConfig(path, { env: io.env })
  const routes = staticRoutes(config)
  const composed = await compose(config, { definitions: BUILTIN_PLUGINS, plugins: [] }, { baseDir: configDir(path), log: silentLogger, secrets: createSecretSet({ env: io.env }), routes })
  await composed.scope.dispose()
  for (const warning of composed.warnings) io.stderr.write(`warning: ${warning}\n`)
  // The routes of sources that are not HTTP (a market watch's `market:<watch>`): a config whose only work is a watch
  // is said to have it, with where its alerts go.
  const watches = composed.plugins.flatMap((plugin) => plugin.routes ?? [])
  const targets = [...new Set([...routes, ...watches].map((r) => r.deliver))].join(', ') || 'none'
  const names = routes.map((r) => r.name).join(', ') || (watches.length > 0 ? 'none' : 'none (subscriptions only)')
  const watched = watches.length === 0 ? '' : `, ${watches.length} watch${watches.length === 1 ? '' : 'es'} (${watches.map((r) => r.name).join(', ')})`
  io.stdout.write(
    `${values.config} is valid: ${routes.length} route${routes.length === 1 ? '' : 's'} (${names})${watched}, runner ${config.agent.runner}, ` +
      `state ${config.state.driver}, delivering to ${targets}${config.plugins.length ? `, ${config.plugins.length} plugin(s) loaded` : ''}.\n`,
  )
  return 0
}
