/**
 * `hookpilot test <name>`: signs a payload with a dynamic subscription's secret and posts it to the running
 * gateway, as GitHub would. It is the companion of `hookpilot subscribe` and reads only subscriptions;
 * `hookpilot send` covers every route, static ones included.
 */
import { POST_HELP, postCommand } from './post-webhook.js'
import { COMMON_HELP, findSubscription } from './subscriptions-common.js'

const HELP = `Usage: hookpilot test <name> [--payload FILE] [--event E] [--action A] [--head SHA] [--set PATH=V]... [options]

Sends a signed test delivery (X-Hub-Signature-256) to the dynamic subscription <name> on the running gateway
and prints the answer's status and body. Only subscriptions are read; for a route in config.yaml use
"hookpilot send <route>".

Options:
${POST_HELP}
${COMMON_HELP}
`

/** Posts one signed delivery to a subscription; exits 0 on a 2xx answer. */
export const testWebhook = postCommand('test', HELP, 'subscription name', async (ctx, name, io) => {
  const found = await findSubscription(ctx, name)
  if (found.kind !== 'found') {
    const missing = ctx.staticNames.has(name)
      ? `"${name}" is a static route in ${ctx.configPath}; "hookpilot test" reads only subscriptions: use "hookpilot send ${name}".`
      : `No subscription named "${name}" in ${ctx.store.where}. "hookpilot list" shows the routes; "hookpilot subscribe ${name}" creates it.`
    io.stderr.write((found.kind === 'error' ? found.message : missing) + '\n')
    return undefined
  }
  if (ctx.staticNames.has(name)) {
    io.stderr.write(`Warning: the static route "${name}" in ${ctx.configPath} shadows this subscription, so the gateway checks the static route's secret.\n`)
  }
  return found.route
})
