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
import type { Subcommand } from './io.js'

const HELP = `Usage: hookpilot check [--config FILE]

Checks a configuration the way "hookpilot serve" would, without starting anything, and reports every problem at
once (exit 1), or a one-line summary (exit 0). Environment variables count as serve would see them.

Options:
  -c, --config FILE   configuration file (default: ./config.yaml)
  -h, --help          show this help
`

/** Checks the config; exit 0 with a summary, 1 with every problem. */
export const check: Subcommand = async (args, io) => {
  const { values, positionals } = parse(args, { config: { type: 'string', short: 'c', default: 'config.yaml' }, help: { type: 'boolean', short: 'h' } }, 'check')
  if (values.help) {
    io.stdout.write(HELP)
    return 0
  }
  if (positionals.length > 0) throw new UsageError(`check takes no arguments (got ${positionals.join(' ')}); the config file goes after --config.`)
  const path = resolve(io.cwd, values.config)
  const config = await loadConfig(path, { env: io.env })
  const routes = staticRoutes(config)
  const composed = await compose(config, { definitions: BUILTIN_PLUGINS, plugins: [] }, { baseDir: configDir(path), log: silentLogger, secrets: createSecretSet({ env: io.env }), routes })
  await composed.scope.dispose()
  for (const warning of composed.warnings) io.stderr.write(`warning: ${warning}\n`)
  const targets = [...new Set(routes.map((r) => r.deliver))].join(', ') || 'none'
  const names = routes.map((r) => r.name).join(', ') || 'none (subscriptions only)'
  io.stdout.write(
    `${values.config} is valid: ${routes.length} route${routes.length === 1 ? '' : 's'} (${names}), runner ${config.agent.runner}, ` +
      `state ${config.state.driver}, delivering to ${targets}${config.plugins.length ? `, ${config.plugins.length} plugin(s) loaded` : ''}.\n`,
  )
  return 0
}
