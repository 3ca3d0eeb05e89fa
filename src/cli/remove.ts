/**
 * `hookpilot remove <name>`: deletes a dynamic subscription. Static routes (config.yaml) are never touched.
 * A running gateway stops answering the route within a second; a run already accepted on it still finishes.
 */
import { parse } from './args.js'
import type { Subcommand } from './io.js'
import { COMMON_HELP, COMMON_OPTIONS, withContext, oneName } from './subscriptions-common.js'

const HELP = `Usage: hookpilot remove <name> [options]

Removes the dynamic subscription <name>; a running gateway stops answering it without a restart.
Routes defined in config.yaml are not removed by this command: edit the config for those.

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
  const name = oneName(positionals, 'remove')
  return withContext(values.config, io, async (ctx) => {
    const removed = await ctx.store.update((file) => {
      if (!Object.hasOwn(file.subscriptions, name)) return { result: false }
      const { [name]: _gone, ...rest } = file.subscriptions
      return { file: { ...file, subscriptions: rest }, result: true }
    })
    if (removed) {
      const shadow = ctx.staticNames.has(name) ? ` The static route "${name}" in ${ctx.configPath} still answers.` : ''
      io.stdout.write(`Removed subscription "${name}" from ${ctx.store.where}.${shadow}\n`)
      return 0
    }
    if (ctx.staticNames.has(name)) {
      io.stderr.write(`"${name}" is a static route, defined in ${ctx.configPath}: remove it there (this command only removes dynamic subscriptions).\n`)
    } else {
      io.stderr.write(`No subscription named "${name}" in ${ctx.store.where}. "hookpilot list" shows the routes.\n`)
    }
    return 1
  })
}
