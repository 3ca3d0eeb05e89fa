/**
 * `hookpilot market watch <slug|token>`: the market channel for a person. On a terminal the book and the last
 * trades are redrawn in place; piped, one line per event; with `--json`, one JSON object per line for scripts.
 */
import type { MarketClient, MarketEvent } from '../../sdk/index.js'
import { LocalBook } from '../../sdk/stream/order-book.js'
import type { CliIO } from '../io.js'
import { str, type MarketCommand } from './command.js'
import { count, positional } from './options.js'
import { pct, shares } from './table.js'

const isTokenId = (s: string): boolean => /^\d{10,}$/.test(s)
/** Redraws at most this often: a busy market would otherwise repaint faster than anyone reads. */
const FRAME_MS = 100
const TRADES_SHOWN = 6

interface Target {
  readonly title: string
  readonly tokenIds: readonly string[]
  /** The token whose book is drawn. */
  readonly shown: string
  readonly label: (tokenId: string) => string
}

async function targetOf(pm: MarketClient, arg: string, outcome: string | undefined): Promise<Target> {
  if (isTokenId(arg)) return { title: `Token ${arg}`, tokenIds: [arg], shown: arg, label: () => 'token' }
  const handle = pm.market(await pm.markets.bySlug(arg))
  // outcome() throws the MarketUsageError that names the outcomes, or says the market has no order book.
  const shown = handle.outcome(outcome === undefined ? 0 : /^\d+$/.test(outcome) ? Number(outcome) : outcome)
  const labels = new Map(handle.market.outcomes.map((o) => [o.tokenId, o.label]))
  return { title: handle.market.question, tokenIds: handle.tokens.map((t) => t.id), shown: shown.id, label: (id) => labels.get(id) ?? '?' }
}

const clock = (d: Date | null = new Date()): string => (d ?? new Date()).toISOString().slice(11, 19)

/** One event as one line of text. */
function line(e: MarketEvent, label: (id: string) => string): string {
  switch (e.type) {
    case 'book':
      return `${clock(e.timestamp)} book   ${label(e.tokenId)}  bid ${level(e.bids[0])}  ask ${level(e.asks[0])}`
    case 'price_change':
      return e.changes
        .map((c) => `${clock(e.timestamp)} change ${label(c.tokenId)}  ${c.side === 'buy' ? 'bid' : 'ask'} ${pct(c.price)} → ${shares(c.size)}`)
        .join('\n')
    case 'last_trade_price':
      return `${clock(e.timestamp)} trade  ${label(e.tokenId)}  ${e.side.toUpperCase()} ${shares(e.size)} @ ${pct(e.price)}`
    case 'tick_size_change':
      return `${clock(e.timestamp)} tick   ${label(e.tokenId)}  ${e.oldTickSize ?? '-'} → ${e.newTickSize}`
    case 'reconnected':
      return `${clock()} reconnected after the connection ${e.reason === 'closed' ? 'closed' : `failed (${e.reason})`}: books rebuilt from fresh snapshots`
    case 'gap_filled':
      return `${clock()} gap filled: ${e.trades.length} trades since ${clock(e.from)} fetched`
    case 'gap_unfilled':
      return `${clock()} gap not filled since ${clock(e.from)}: ${e.reason}`
  }
}

const level = (l: { price: number; size: number } | undefined): string => (l === undefined ? '-' : `${pct(l.price)} × ${shares(l.size)}`)

/** The screen of the terminal view. */
function screen(t: Target, book: LocalBook | undefined, trades: readonly string[], status: string, depth: number): string {
  const rows: string[] = [`${t.title} — ${t.label(t.shown)}`, status, '']
  rows.push(`${'BIDS'.padStart(9)} ${'SIZE'.padStart(12)}    ${'ASKS'.padStart(9)} ${'SIZE'.padStart(12)}`)
  for (let i = 0; i < depth; i++) {
    const b = book?.book.bids[i]
    const a = book?.book.asks[i]
    const side = (l: typeof b) => (l === undefined ? ' '.repeat(22) : `${pct(l.price).padStart(9)} ${shares(l.size).padStart(12)}`)
    rows.push(`${side(b)}    ${side(a)}`.trimEnd())
  }
  rows.push('', 'LAST TRADES', ...(trades.length > 0 ? trades : ['(none yet)']))
  return rows.join('\n') + '\n'
}

/** `hookpilot market watch`. */
export const watch: MarketCommand = {
  summary: "watch a market's live book and trades (Ctrl-C to stop)",
  usage: 'hookpilot market watch <slug|token> [--outcome label|index] [--depth n] [--count n]',
  help: `Options:
  --outcome <o>     which outcome's book to draw (default the first; trades of every outcome are shown)
  --depth <n>       levels per side on a terminal (default 8)
  --count <n>       stop after n events (default: until Ctrl-C)
On a terminal the view is redrawn in place; piped, one line per event; --json: one JSON event per line.
`,
  options: { outcome: { type: 'string' }, depth: { type: 'string' }, count: { type: 'string' } },
  prepare(parsed) {
    const arg = positional(parsed.positionals, 'slug|token', this.usage)
    const depth = count('depth', str(parsed, 'depth'), 8, 100)
    const limit = str(parsed, 'count') === undefined ? Number.POSITIVE_INFINITY : count('count', str(parsed, 'count'), 1, 1_000_000)
    return async ({ pm, io, json }) => {
      const target = await targetOf(pm, arg, str(parsed, 'outcome'))
      const controller = new AbortController()
      const stop = (): void => controller.abort()
      process.once('SIGINT', stop)
      try {
        const events = pm.watch(target.tokenIds, { signal: controller.signal })
        if (json) await asJson(events, io, limit)
        else if (io.stdout.isTTY === true) await live(events, io, target, depth, limit)
        else await asLines(events, io, target, limit)
      } finally {
        process.off('SIGINT', stop)
      }
    }
  },
}

async function asJson(events: AsyncIterable<MarketEvent>, io: CliIO, limit: number): Promise<void> {
  let n = 0
  for await (const e of events) {
    io.stdout.write(`${JSON.stringify(e, (key, v: unknown) => (key === 'raw' ? undefined : v))}\n`)
    if (++n >= limit) return
  }
}

async function asLines(events: AsyncIterable<MarketEvent>, io: CliIO, t: Target, limit: number): Promise<void> {
  let n = 0
  for await (const e of events) {
    io.stdout.write(`${line(e, t.label)}\n`)
    if (++n >= limit) return
  }
}

async function live(events: AsyncIterable<MarketEvent>, io: CliIO, t: Target, depth: number, limit: number): Promise<void> {
  let book: LocalBook | undefined
  const trades: string[] = []
  let drawn = 0
  let last = 0
  let n = 0
  let status = 'connecting…'
  const draw = (force: boolean): void => {
    if (!force && Date.now() - last < FRAME_MS) return
    last = Date.now()
    const text = screen(t, book, trades, `${status}  ${n} events  ${clock()} UTC  (Ctrl-C to stop)`, depth)
    // Up to the first line of the previous frame, clear to the end of the screen, and write the new one.
    io.stdout.write(`${drawn > 0 ? `\x1b[${drawn}F` : ''}\x1b[J${text}`)
    drawn = text.split('\n').length - 1
  }
  // A quiet market still gets its clock (and a throttled last change) drawn each second.
  const timer = setInterval(() => draw(true), 1000)
  draw(true)
  try {
    for await (const e of events) {
      n++
      status = 'live'
      switch (e.type) {
        case 'book':
          if (e.tokenId === t.shown) book = LocalBook.fromSnapshot(e)
          break
        case 'price_change':
          for (const c of e.changes) if (c.tokenId === t.shown) book?.set(c.side, c.price, c.size, e.timestamp)
          break
        case 'last_trade_price':
          trades.unshift(line(e, t.label).replace(/ trade {2}/, ' '))
          trades.length = Math.min(trades.length, TRADES_SHOWN)
          break
        case 'reconnected':
          // Until the fresh snapshot, the drawn book is the last one known: say so.
          status = `reconnected (${e.reason})`
          break
        default:
          break
      }
      const final = n >= limit
      draw(final)
      if (final) return
    }
  } finally {
    clearInterval(timer)
  }
}
