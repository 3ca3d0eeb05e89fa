/**
 * `hookpilot import-subscriptions`: moves the subscriptions of the file beside config.yaml into the state
 * backend's shared store (Redis), the step from one instance to several. The file is read, never changed.
 */
import { dirname, isAbsolute, resolve } from 'node:path'
import { readSubscriptions, subscriptionsPath } from '../core/routes/subscriptions/index.js'
import { loadConfig } from '../index.js'
import { parse, UsageError } from './args.js'
import type { Subcommand } from './io.js'
import { openSubscriptions } from './state-access.js'
import { COMMON_HELP, COMMON_OPTIONS } from './subscriptions-common.js'

const HELP = `Usage: hookpilot import-subscriptions [options]

Copies the subscriptions and market watches of a subscriptions file into the store of state.driver (Redis),
where every instance reads them. One of the same name already in the store is kept, unless --replace is given.

Options:
      --from FILE     the subscriptions file (default: the one beside the config, or subscriptions_file)
      --replace       overwrite subscriptions and watches of the same name in the store
${COMMON_HELP}
`

/** Imports; exits 1 when there is nothing to import from or nowhere shared to import to. */
export const importSubscriptions: Subcommand = async (args, io) => {
  const { values, positionals } = parse(args, {
    ...COMMON_OPTIONS,
    from: { type: 'string' },
    replace: { type: 'boolean' },
  }, 'import-subscriptions')
  if (values.help) {
    io.stdout.write(HELP)
    return 0
  }
  if (positionals.length > 0) throw new UsageError(`import-subscriptions takes no arguments (got ${positionals.join(' ')}); the file goes after --from.`)
  const configPath = isAbsolute(values.config) ? values.config : resolve(io.cwd, values.config)
  const baseDir = dirname(configPath)
  const config = await loadConfig(configPath, { env: io.env, lenientEnv: true })
  const from = values.from === undefined ? subscriptionsPath(config, baseDir) ?? baseDir : resolve(io.cwd, values.from)
  const read = await readSubscriptions(from)
  if (read.status !== 'ok') {
    io.stderr.write(read.status === 'missing' ? `No subscriptions file at ${from}: nothing to import (give one with --from).\n` : `The subscriptions file ${from} is invalid: ${read.reason}\n`)
    return 1
  }
  const { store, close } = await openSubscriptions(config, baseDir)
  try {
    if (store.where === from) {
      io.stderr.write(`state.driver "${config.state.driver}" keeps subscriptions in this very file: set state.driver: redis (and state.url) in ${values.config} first.\n`)
      return 1
    }
    const { subscriptions, watches } = await store.update((current) => {
      const subscriptions = merged(read.file.subscriptions, current.subscriptions, values.replace === true)
      const watches = merged(read.file.watches ?? {}, current.watches ?? {}, values.replace === true)
      const changed = subscriptions.imported.length + watches.imported.length > 0
      return { file: changed ? { ...current, subscriptions: subscriptions.all, watches: watches.all } : undefined, result: { subscriptions, watches } }
    })
    const named = (names: readonly string[]) => (names.length ? `: ${names.join(', ')}` : '')
    io.stdout.write(`Imported ${subscriptions.imported.length} subscription(s) from ${from} into ${store.where}${named(subscriptions.imported)}.\n`)
    if (watches.imported.length + watches.kept.length > 0) io.stdout.write(`Imported ${watches.imported.length} market watch(es)${named(watches.imported)}.\n`)
    const kept = [...subscriptions.kept, ...watches.kept]
    if (kept.length > 0) io.stdout.write(`Kept the ones already there (use --replace to overwrite): ${kept.join(', ')}.\n`)
    io.stdout.write('The file is unchanged; remove it once every instance runs with the shared store.\n')
    return 0
  } finally {
    await close()
  }
}

/** `incoming` entries over `current` ones: those of a name already there are kept unless `replace`. */
function merged(incoming: Readonly<Record<string, unknown>>, current: Readonly<Record<string, unknown>>, replace: boolean) {
  const kept = Object.keys(incoming).filter((name) => Object.hasOwn(current, name) && !replace)
  const imported = Object.keys(incoming).filter((name) => !kept.includes(name))
  return { all: { ...current, ...Object.fromEntries(imported.map((name) => [name, incoming[name]])) }, imported, kept }
}
