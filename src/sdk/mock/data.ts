/**
 * The mock trades service (v1 here; `/v2/...` in data-v2.ts). Quirks kept on purpose: bare arrays, `limit` clamped to 10 (so walks cross pages),
 * 400 past offset 10,000, markets as a comma-separated list of condition ids, open interest `null` for a new market.
 */
import { MARKETS, pricesOf, tokensOf, type MockMarket } from './fixtures.js'
import { boolParam, fail, json, numParam, window } from './respond.js'

// Spain's World Cup market is the busy one: 36,000 trades (12,000 sells, all by the first wallet; 24,000 buys by
// the other two), past the offset cap on both sides, for the trades export.
const COUNTS: Readonly<Record<string, number>> = { '2169995': 25, '516724': 30, '700103': 36_000 }
const WALLETS = [
  ['0xceb57e549f8aa0627f4a4c6004bc8951d78ea27b', 'grenadine', 'Trivial-Gopher'],
  ['0x1111111111111111111111111111111111111111', 'oracle', 'Brave-Heron'],
  ['0x2222222222222222222222222222222222222222', '', 'Quiet-Otter'],
] as const

type MockTrade = Record<string, unknown> & { readonly ago: number }

let memo: { trades: MockTrade[]; byMarket: Map<unknown, MockTrade[]> } | undefined

/**
 * Every mock trade, newest first, with its age in seconds (`ago`) instead of a time, and by market; made once (the
 * busy market is large), and given a time only when answered.
 */
/** @internal Also the source of the v2 routes (data-v2.ts). */
export function allTrades(): NonNullable<typeof memo> {
  if (memo === undefined) {
    const trades = makeTrades()
    const byMarket = new Map<unknown, MockTrade[]>()
    for (const t of trades) {
      const list = byMarket.get(t['conditionId'])
      if (list === undefined) byMarket.set(t['conditionId'], [t])
      else list.push(t)
    }
    memo = { trades, byMarket }
  }
  return memo
}

function makeTrades(): MockTrade[] {
  const trades = MARKETS.filter((m) => tokensOf(m).length > 0 && !m._newborn).flatMap((m) => {
    const tokens = tokensOf(m)
    const labels = JSON.parse(m.outcomes ?? '[]') as string[]
    return Array.from({ length: COUNTS[m.id] ?? 4 }, (_, k) => {
      const index = k % tokens.length
      const [wallet, name, pseudonym] = WALLETS[k % WALLETS.length] ?? WALLETS[0]
      return {
        proxyWallet: wallet,
        side: k % 3 === 0 ? 'SELL' : 'BUY',
        asset: tokens[index],
        conditionId: m.conditionId,
        size: Math.round((10 + ((k * 37 + Number(m.id)) % 500)) * 100) / 100,
        price: Math.max(0.001, Math.round(((pricesOf(m)[index] ?? 0.5) + ((k % 5) - 2) * 0.003) * 1000) / 1000),
        ago: 600 * (k + 1) + (Number(m.id) % 97),
        title: m.question,
        slug: m.slug,
        eventSlug: (m['events'] as { slug: string }[])[0]?.slug ?? '',
        outcome: labels[index] ?? '',
        outcomeIndex: index,
        name,
        pseudonym,
        bio: '',
        transactionHash: `0x${String(k).padStart(4, '0')}${m.id.padStart(10, '0')}`.padEnd(66, 'a'),
      }
    })
  })
  return trades.sort((a, b) => a.ago - b.ago || a.transactionHash.localeCompare(b.transactionHash))
}

/** Answers one trades-service request; `page` is the most trades one answer holds (`limit` is clamped to it). */
export function data(path: string, q: URLSearchParams, now: number, page = 10): Response {
  const markets = q.get('market')?.split(',').filter(Boolean)
  if (path === '/oi') {
    if (!markets?.length) return fail(400, 'market is required')
    const known = MARKETS.filter((m) => markets.includes(m.conditionId))
    // A brand-new market has no figure yet: the service sends `value: null` for it.
    const value = (m: MockMarket): number | null => (m._newborn ? null : m.closed ? 0 : Math.round(m.volumeNum * 0.1 * 1e6) / 1e6)
    return json(known.map((m) => ({ market: m.conditionId, value: value(m) })))
  }
  if (path !== '/trades') return fail(404, `no route for ${path}`)
  if ((numParam(q, 'offset') ?? 0) > 10_000) return fail(400, 'max historical trades offset of 10000 exceeded')
  const side = q.get('side')?.toUpperCase()
  const user = q.get('user')?.toLowerCase()
  boolParam(q, 'takerOnly') // accepted; every mock trade is a taker fill
  const { trades, byMarket } = allTrades()
  const candidates = markets === undefined ? trades : markets.length === 1 ? (byMarket.get(markets[0]) ?? []) : trades
  const matching = candidates.filter(
    (t) =>
      (markets === undefined || markets.includes(t['conditionId'] as string)) &&
      (side === undefined || t['side'] === side) &&
      (user === undefined || t['proxyWallet'] === user),
  )
  const base = Math.floor(now / 1000)
  return json(window(matching, q, page).items.map(({ ago, ...t }) => ({ ...t, timestamp: base - ago })))
}
