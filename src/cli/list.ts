/**
 * `hookpilot list`: every route, static (config.yaml) and dynamic (subscriptions), marked which is which, with
 * what the gateway would do with it. Secrets are never shown.
 */
import { resolveSubscription } from '../core/routes/subscriptions/index.js'
import { staticRoutes } from '../core/routes/static-routes.js'
import { parse } from './args.js'
import { watchRows } from './list-watches.js'
import type { Subcommand } from './io.js'
import { servedTargets, COMMON_HELP, COMMON_OPTIONS, withContext, publicUrl } from './subscriptions-common.js'

const HELP = `Usage: hookpilot list [options]

Lists the routes: static ones from config.yaml and dynamic subscriptions, then the market watches (named by
their jobs' route, market:<name>; EVENTS shows their conditions). Secrets are never shown.

Options:
      --json          one JSON array instead of a table
${COMMON_HELP}
`

/** One row of the listing. */
interface Row {
  readonly name: string
  readonly source: 'static' | 'dynamic'
  /** For a market watch, its conditions. */
  readonly events: readonly string[]
  readonly deliver: string
  readonly url?: string
  readonly description: string | undefined
  /** Why the gateway does not serve this subscription, when it does not. */
  readonly skipped: string | undefined
}

/** Prints the routes; exits 1 when the subscriptions file is broken (the static routes are still listed). */
export const list: Subcommand = async (args, io) => {
  const { values, positionals } = parse(args, { ...COMMON_OPTIONS, json: { type: 'boolean' } }, 'list')
  if (values.help) {
    io.stdout.write(HELP)
    return 0
  }
  if (positionals.length > 0) {
    io.stderr.write(`hookpilot list takes no arguments (got ${positionals.join(' ')}). Run "hookpilot list --help".\n`)
    return 2
  }
  return withContext(values.config, io, async (ctx) => {
    const rows: Row[] = staticRoutes(ctx.config).map((r) => ({
      name: r.name, source: 'static', events: r.events, deliver: r.deliver, url: publicUrl(ctx.config, r.name, ctx.configPath), description: r.description, skipped: undefined,
    }))
    const read = await ctx.store.read()
    const served = read.status === 'invalid' ? undefined : await servedTargets(ctx)
    if (read.status === 'ok') {
      for (const [name, raw] of Object.entries(read.file.subscriptions)) {
        const route = resolveSubscription(name, raw, { config: ctx.config, targets: served?.targets, hints: served?.hints, staticNames: ctx.staticNames })
        const entry = (typeof raw === 'object' && raw !== null ? raw : {}) as { events?: unknown; deliver?: unknown; description?: unknown }
        rows.push({
          name,
          source: 'dynamic',
          events: 'reason' in route ? (Array.isArray(entry.events) ? entry.events.map(String) : []) : route.events,
          deliver: 'reason' in route ? shown(entry.deliver) : route.deliver,
          url: publicUrl(ctx.config, name, ctx.configPath),
          description: 'reason' in route ? (typeof entry.description === 'string' ? entry.description : undefined) : route.description,
          skipped: 'reason' in route ? route.reason : undefined,
        })
      }
    }
    const all = [...rows, ...watchRows(ctx, read.status === 'ok' ? read.file : undefined, served)]
    if (values.json) io.stdout.write(JSON.stringify(all, null, 2) + '\n')
    else io.stdout.write(table(all) + `\nSubscriptions: ${ctx.store.where}${read.status === 'missing' ? ' (none yet)' : ''}\n`)
    if (read.status === 'invalid') {
      io.stderr.write(`The subscriptions in ${ctx.store.where} are invalid: ${read.reason}\nThey are not listed; a running gateway keeps the set it loaded last.\n`)
      return 1
    }
    return 0
  })
}

/** What a subscription that cannot be served names as its target, as written (JSON when it is not text). */
function shown(deliver: unknown): string {
  if (deliver === undefined || deliver === null) return 'log'
  return typeof deliver === 'string' ? deliver : JSON.stringify(deliver)
}

function table(rows: readonly Row[]): string {
  if (rows.length === 0) return 'No routes: add one to config.yaml, or run "hookpilot subscribe <name>".'
  const cells = rows.map((r) => [
    r.name,
    r.source,
    r.events.length ? r.events.join(',') : '(all)',
    r.deliver,
    r.skipped ? `NOT SERVED: ${r.skipped}` : (r.description ?? ''),
  ])
  const head = ['NAME', 'SOURCE', 'EVENTS', 'DELIVER', 'DESCRIPTION']
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)))
  const line = (c: readonly string[]) => c.map((cell, i) => (i === c.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ').trimEnd()
  return [line(head), ...cells.map(line)].join('\n')
}
