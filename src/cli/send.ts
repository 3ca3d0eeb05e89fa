/**
 * `hookpilot send <route>`: like `hookpilot test`, for any route the gateway answers, static ones included
 * (`hookpilot test` reads only subscriptions), signed with the secret from the config or the subscription.
 */
import { staticRoutes } from '../core/routes/static-routes.js'
import { POST_HELP, postCommand } from './post-webhook.js'
import { COMMON_HELP, findSubscription } from './subscriptions-common.js'

const HELP = `Usage: hookpilot send <route> [--payload FILE] [--event E] [--action A] [--head SHA] [--set PATH=V]...
                      [--delivery ID] [options]

Sends a signed delivery (X-Hub-Signature-256) to <route> on the running gateway, a route from config.yaml or a
dynamic subscription (config.yaml wins a name clash, as in the gateway), and prints the answer's status and body.

  hookpilot send pr-review --action synchronize --head 1111111111111111111111111111111111111111
  hookpilot send pr-review --delivery 6f1c...   # the same delivery again: answered "duplicate"

Options:
${POST_HELP}
${COMMON_HELP}
`

/** Posts one signed delivery to any route, static first as in the gateway; exits 0 on a 2xx answer. */
export const send = postCommand('send', HELP, 'route name', async (ctx, name, io) => {
  const fixed = staticRoutes(ctx.config).find((r) => r.name === name)
  if (fixed) return fixed
  const found = await findSubscription(ctx, name)
  if (found.kind === 'found') return found.route
  io.stderr.write(
    found.kind === 'error'
      ? `No route "${name}" in ${ctx.configPath}. ${found.message}\n`
      : `No route named "${name}" in ${ctx.configPath} or ${ctx.store.where}. "hookpilot list" shows the routes.\n`,
  )
  return undefined
})
