/**
 * `hookpilot remove <name>`: deletes a dynamic subscription, or a market watch `subscribe --market` added. Static routes (config.yaml) are never touched.
 * A running gateway stops answering the route within a second; a run already accepted on it still finishes.
 */
import { parse } from './args.js'
import type { Subcommand } from './io.js'
import type { SubscriptionsFile } from '../core/routes/subscriptions/index.js'
import { marketSection } from './subscribe-market.js'
import { watchOf } from '../plugins/sources/market/watch-route.js'
import { COMMON_HELP, COMMON_OPTIONS, withContext, oneName } from './subscriptions-common.js'

const HELP = `Usage: hookpilot remove <name> [options]

Removes the dynamic subscription or market watch <name> (a watch may be named market:<name>); a running
gateway stops answering it, or watching it, without a restart.
Routes and watches defined in config.yaml are not removed by this command: edit the config for those.

Options:
${COMMON_HELP}
`

/** Removes one subscription; exits 1 when there is none of that name. */
export const remove: Subcommand = async (args, io) => {
  const { values, positionals } = parse(args, COMMON_OPTIONS, 'remove')
  if (values.help) {
    io.stdout.write(HELP)
    return 0
  }
  // A market watch may be named by its jobs' route, market:<name>.
  const name = oneName(positionals.map((p) => watchOf(p) ?? p), 'remove')
  return withContext(values.config, io, async (ctx) => {
    const removed = await ctx.store.update((file): { file?: SubscriptionsFile; result: 'subscription' | 'watch' | undefined } => {
      if (Object.hasOwn(file.subscriptions, name)) {
        const { [name]: _gone, ...rest } = file.subscriptions
        return { file: { ...file, subscriptions: rest }, result: 'subscription' }
      }
      if (file.watches !== undefined && Object.hasOwn(file.watches, name)) {
        const { [name]: _gone, ...rest } = file.watches
        return { file: { ...file, watches: rest }, result: 'watch' }
      }
      return { result: undefined }
    })
    if (removed === 'watch') {
      io.stdout.write(`Removed market watch "${name}" from ${ctx.store.where}; a running gateway stops watching it. Its jobs stay in "hookpilot jobs" (route market:${name}).\n`)
      return 0
    }
    if (removed === 'subscription') {
      const shadow = ctx.staticNames.has(name) ? ` The static route "${name}" in ${ctx.configPath} still answers.` : ''
      io.stdout.write(`Removed subscription "${name}" from ${ctx.store.where}.${shadow}\n`)
      return 0
    }
    if (marketSection(ctx).watches.has(name)) {
      io.stderr.write(`"${name}" is a market watch of ${ctx.configPath} (platforms.market.extra.watches): remove it there (this command only removes what subscribe added).\n`)
    } else if (ctx.staticNames.has(name)) {
      io.stderr.write(`"${name}" is a static route, defined in ${ctx.configPath}: remove it there (this command only removes dynamic subscriptions).\n`)
    } else {
      io.stderr.write(`No subscription named "${name}" in ${ctx.store.where}. "hookpilot list" shows the routes.\n`)
    }
    return 1
  })
}
