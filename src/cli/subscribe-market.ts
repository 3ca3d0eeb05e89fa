/**
 * `hookpilot subscribe --market <slug|token ids> --when ... [--name NAME]`: adds (or rewrites) a market watch
 * in the subscription store, beside the webhook subscriptions. A running gateway with `platforms.market`
 * enabled starts watching within a second, without a restart; `hookpilot remove NAME` stops it.
 */
import * as v from 'valibot'
import { routeProblem } from '../core/routes/route-problem.js'
import type { SubscriptionChange } from '../core/routes/subscriptions/index.js'
import { marketOptions } from '../plugins/sources/market/options.js'
import { parseWatchEntry } from '../plugins/sources/market/watch-entry.js'
import { routeOf, watchRoute } from '../plugins/sources/market/watch-route.js'
import { formatWhen, parseWhen, WhenSyntaxError, WHEN_FORMS } from '../plugins/sources/market/when-syntax.js'
import { UsageError } from './args.js'
import type { CliIO } from './io.js'
import { servedTargets, withContext, type CliContext } from './subscriptions-common.js'

/** The flags of a market watch, as `subscribe` parsed them. */
export interface MarketFlags {
  readonly config: string
  readonly market: string
  readonly when: readonly string[]
  readonly name: string | undefined
  readonly prompt: string | undefined
  readonly deliver: string | undefined
  readonly deliverExtra: Readonly<Record<string, string>>
  readonly rateLimit: string | undefined
}

/** Writes the watch and says what it watches; exits 1 when the store or a name clash refuses it. */
export async function subscribeMarket(flags: MarketFlags, io: CliIO): Promise<number> {
  const tokens = flags.market.split(',').map((t) => t.trim())
  const market: string | string[] = tokens.length > 0 && tokens.every((t) => /^\d+$/.test(t)) ? tokens : flags.market.trim()
  const name = flags.name ?? defaultName(market)
  const entry = { market, when: parseFlags(flags.when), ...(flags.prompt === undefined ? {} : { prompt: flags.prompt }), deliver: flags.deliver ?? 'log', deliver_extra: flags.deliverExtra, ...(flags.rateLimit === undefined ? {} : { rate_limit: Number(flags.rateLimit) }) }
  if (flags.when.length === 0) throw new UsageError(`--market needs at least one --when: ${WHEN_FORMS}.`)
  const checked = parseWatchEntry(name, entry)
  if (!checked.ok) throw new UsageError(`invalid market watch "${name}": ${flagsOf(checked.reason, flags.when)}.`)
  return withContext(flags.config, io, async (ctx) => {
    const section = marketSection(ctx)
    const refuse = (clash: string) => {
      io.stderr.write(`"${name}" is already ${clash}: give this watch another name with --name.\n`)
      return 1
    }
    if (section.watches.has(name)) return refuse(`a watch of ${ctx.configPath} (platforms.market.extra.watches)`)
    if (ctx.staticNames.has(name)) return refuse(`a webhook route of ${ctx.configPath}`)
    const served = await servedTargets(ctx)
    const problem = served === undefined ? undefined : routeProblem(watchRoute(name, checked.value, 'dynamic'), served.targets, served.hints)
    // A webhook subscription of that name is checked in the same atomic change that writes the watch.
    const created = await ctx.store.update((file): SubscriptionChange<boolean | 'subscription'> => {
      if (Object.hasOwn(file.subscriptions, name)) return { result: 'subscription' }
      const watches = file.watches ?? {}
      const before = (Object.hasOwn(watches, name) ? watches[name] : undefined) as { created_at?: unknown } | undefined
      const next = { ...entry, created_at: typeof before?.created_at === 'string' ? before.created_at : new Date().toISOString() }
      return { file: { ...file, watches: { ...watches, [name]: next } }, result: before === undefined }
    })
    if (created === 'subscription') return refuse(`a webhook subscription in ${ctx.store.where}`)
    io.stdout.write([
      `${created ? 'Created' : 'Updated'} market watch "${name}" in ${ctx.store.where}`,
      '',
      `  Market:   ${typeof market === 'string' ? market : market.join(', ')}`,
      `  When:     ${formatWhen(checked.value.when)}`,
      `  Deliver:  ${checked.value.deliver}`,
      `  Jobs:     route ${routeOf(name)} (hookpilot jobs list --route ${routeOf(name)})`,
      '',
      'A running gateway starts watching it without a restart; "hookpilot remove ' + name + '" stops it.',
      '',
    ].join('\n'))
    if (!section.enabled) io.stderr.write(`Warning: platforms.market is not enabled in ${ctx.configPath}: the watch is kept, and runs once you set platforms.market.enabled: true.\n`)
    if (problem !== undefined) io.stderr.write(`Warning: ${problem}. A running gateway skips this watch (with a warning) until that is fixed.\n`)
    return 0
  })

  /** Every `--when`, or one error that tells each one written wrong (a second typo had no "did you mean"). */
  function parseFlags(texts: readonly string[]): Record<string, unknown>[] {
    const wrong: string[] = []
    const parsed = texts.map((text) => {
      try {
        return parseWhen(text)
      } catch (err) {
        if (!(err instanceof WhenSyntaxError)) throw err
        wrong.push(err.message)
        return {}
      }
    })
    if (wrong.length > 0) throw new UsageError(`${wrong.join('\n')}.`)
    return parsed
  }
}

/** `platforms.market` of the config, as far as the market source would read it. */
export function marketSection(ctx: CliContext): { readonly enabled: boolean; readonly watches: ReadonlyMap<string, v.InferOutput<typeof marketOptions>['extra']['watches'][string]> } {
  const parsed = v.safeParse(marketOptions, ctx.config.platforms['market'] ?? {})
  if (!parsed.success) return { enabled: false, watches: new Map() }
  return { enabled: parsed.output.enabled, watches: new Map(Object.entries(parsed.output.extra.watches)) }
}

/** A watch named after its market: the slug (cut to 64 characters), or `tokens-` and the first id's head. */
function defaultName(market: string | readonly string[]): string {
  if (typeof market !== 'string') return `tokens-${(market[0] ?? '').slice(0, 12)}`
  return market.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').slice(0, 64).replace(/^-+|-+$/g, '') || 'watch'
}

/** A reason with its `when.N` paths told as the `--when` flag they came from, so the user knows which to change. */
function flagsOf(reason: string, when: readonly string[]): string {
  return reason.split('; ').map((part) => {
    const match = /^when\.(\d+)(?:\.([\w.]+))?: (.*)$/.exec(part)
    if (!match) return part.replace(/^(deliver_extra|deliver|prompt|market|rate_limit)\b/, (k) => `--${k.replace('_', '-')}`)
    const [, index = '0', key, message = ''] = match
    const hint = /price (above 0|below 1)/.test(message) ? ' (a price is a probability between 0 and 1: 5 points is 0.05)' : ''
    return `--when "${when[Number(index)] ?? ''}": ${key === undefined ? '' : `${key}: `}${message}${hint}`
  }).join('; ')
}
