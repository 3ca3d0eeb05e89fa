/**
 * `hookpilot send <route>`: like `hookpilot test`, for any route the gateway answers, static ones included
 * (the seed's test command could not reach those), signed with the secret from the config or the subscription.
 */
import { staticRoutes } from '../core/config.js'
import type { Route } from '../core/types.js'
import { parse } from './args.js'
import type { CliIO, Subcommand } from './io.js'
import { loadPayload, POST_HELP, POST_OPTIONS, postSigned } from './post-webhook.js'
import { COMMON_HELP, COMMON_OPTIONS, findSubscription, loadContext, localBaseUrl, oneName, type CliContext } from './subscriptions-common.js'

const HELP = `Usage: hookpilot send <route> [--payload FILE] [--event E] [options]

Sends a signed delivery (X-Hub-Signature-256) to <route> on the running gateway, a route from config.yaml or a
dynamic subscription (config.yaml wins a name clash, as in the gateway), and prints the answer's status and body.

Options:
${POST_HELP}
${COMMON_HELP}
`

/** Posts one signed delivery to any route; exits 0 on a 2xx answer. */
export const send: Subcommand = async (args, io) => {
  const { values, positionals } = parse(args, { ...COMMON_OPTIONS, ...POST_OPTIONS }, 'send')
  if (values.help) {
    io.stdout.write(HELP)
    return 0
  }
  const name = oneName(positionals, 'send', 'route name')
  const ctx = await loadContext(values.config, io)
  const route = await findRoute(ctx, name, io)
  if (!route) return 1
  const payload = await loadPayload(values.payload, values.event, route.events, io)
  return postSigned(localBaseUrl(ctx.config, values.url), name, route.secrets[0] ?? '', payload, io, values.config)
}

async function findRoute(ctx: CliContext, name: string, io: CliIO): Promise<Route | undefined> {
  const fixed = staticRoutes(ctx.config).find((r) => r.name === name)
  if (fixed) return fixed
  const found = await findSubscription(ctx, name)
  if (found.kind === 'found') return found.route
  io.stderr.write(
    found.kind === 'error'
      ? `No route "${name}" in ${ctx.configPath}. ${found.message}\n`
      : `No route named "${name}" in ${ctx.configPath} or ${ctx.file}. "hookpilot list" shows the routes.\n`,
  )
  return undefined
}
