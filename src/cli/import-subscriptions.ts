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

Copies the subscriptions of a subscriptions file into the store of state.driver (Redis), where every instance
reads them. A subscription of the same name already in the store is kept, unless --replace is given.

Options:
      --from FILE     the subscriptions file (default: the one beside the config, or subscriptions_file)
      --replace       overwrite subscriptions of the same name in the store
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
    const incoming = read.file.subscriptions
    const { imported, kept } = await store.update((current) => {
      const kept = Object.keys(incoming).filter((name) => Object.hasOwn(current.subscriptions, name) && !values.replace)
      const imported = Object.keys(incoming).filter((name) => !kept.includes(name))
      const merged = { ...current.subscriptions, ...Object.fromEntries(imported.map((name) => [name, incoming[name]])) }
      return { file: imported.length > 0 ? { ...current, subscriptions: merged } : undefined, result: { imported, kept } }
    })
    io.stdout.write(`Imported ${imported.length} subscription(s) from ${from} into ${store.where}${imported.length ? `: ${imported.join(', ')}` : ''}.\n`)
    if (kept.length > 0) io.stdout.write(`Kept the ones already there (use --replace to overwrite): ${kept.join(', ')}.\n`)
    io.stdout.write('The file is unchanged; remove it once every instance runs with the shared store.\n')
    return 0
  } finally {
    await close()
  }
}
