/**
 * `hookpilot test <name>`: signs a payload with a dynamic subscription's secret and posts it to the running
 * gateway, as GitHub would. As in the seed it reads only subscriptions; `hookpilot send` covers static routes.
 */
import { parse } from './args.js'
import type { Subcommand } from './io.js'
import { loadPayload, POST_HELP, POST_OPTIONS, postSigned } from './post-webhook.js'
import { COMMON_HELP, COMMON_OPTIONS, findSubscription, loadContext, localBaseUrl, oneName } from './subscriptions-common.js'

const HELP = `Usage: hookpilot test <name> [--payload FILE] [--event E] [options]

Sends a signed test delivery (X-Hub-Signature-256) to the dynamic subscription <name> on the running gateway
and prints the answer's status and body. Only subscriptions are read; for a route in config.yaml use
"hookpilot send <route>".

Options:
${POST_HELP}
${COMMON_HELP}
`

/** Posts one signed delivery; exits 0 on a 2xx answer. */
export const testWebhook: Subcommand = async (args, io) => {
  const { values, positionals } = parse(args, { ...COMMON_OPTIONS, ...POST_OPTIONS }, 'test')
  if (values.help) {
    io.stdout.write(HELP)
    return 0
  }
  const name = oneName(positionals, 'test', 'subscription name')
  const ctx = await loadContext(values.config, io)
  const found = await findSubscription(ctx, name)
  if (found.kind !== 'found') {
    const missing = ctx.staticNames.has(name)
      ? `"${name}" is a static route in ${ctx.configPath}; "hookpilot test" reads only subscriptions: use "hookpilot send ${name}".`
      : `No subscription named "${name}" in ${ctx.file}. "hookpilot list" shows the routes; "hookpilot subscribe ${name}" creates it.`
    io.stderr.write((found.kind === 'error' ? found.message : missing) + '\n')
    return 1
  }
  const route = found.route
  if (ctx.staticNames.has(name)) {
    io.stderr.write(`Warning: the static route "${name}" in ${ctx.configPath} shadows this subscription, so the gateway checks the static route's secret.\n`)
  }
  const payload = await loadPayload(values.payload, values.event, route.events, io)
  return postSigned(localBaseUrl(ctx.config, values.url), name, route.secrets[0] ?? '', payload, io, values.config)
}
