/**
 * The mock's data, built from the real services' sample bodies and varied on purpose: binary and multi-outcome
 * markets, open and closed ones, an odd market with null/empty encoded fields, a brand-new market with no history.
 * Everything is in wire form (double-encoded strings, decimal strings, long token ids), as the services send it.
 */

/** A catalog market in wire form, plus the mock's own bookkeeping (`_event`, `_tags`). */
export interface MockMarket extends Record<string, unknown> {
  id: string
  slug: string
  question: string
  conditionId: string
  active: boolean
  closed: boolean
  outcomes?: string | null
  outcomePrices?: string | null
  clobTokenIds?: string | null | undefined
  volumeNum: number
  liquidityNum: number
  createdAt: string
  endDate: string
  _event: string
  _tags: readonly string[]
  _newborn?: boolean
}

/** A catalog event in wire form (markets are joined in by the router). */
export interface MockEvent extends Record<string, unknown> {
  id: string
  slug: string
  title: string
  active: boolean
  closed: boolean
  volume: number
  liquidity: number
  openInterest: number
  createdAt: string
  _tags: readonly string[]
}

/** A tag in wire form. */
export interface MockTag extends Record<string, unknown> {
  id: string
  label: string
  slug: string
}

/** The catalog's tags. */
export const TAGS: readonly MockTag[] = [
  { id: '2', label: 'Politics', slug: 'politics' },
  { id: '1', label: 'Sports', slug: 'sports' },
  { id: '21', label: 'Crypto', slug: 'crypto' },
  { id: '235', label: 'Bitcoin', slug: 'bitcoin', event_count: 1873 },
  { id: '100196', label: 'Fed Rates', slug: 'fed-rates' },
  { id: '596', label: 'Elections', slug: 'elections' },
  { id: '120', label: 'Finance', slug: 'finance' },
]

const EVENTS: readonly MockEvent[] = [
  ev('16085', 'how-many-fed-rate-cuts-in-2025', 'How many Fed rate cuts in 2025?', ['2', '100196'], 31879456.2),
  ev('28012', 'bitcoin-above-on-august-15', 'Bitcoin above ___ on August 15?', ['21', '235'], 2210455.7),
  ev('30001', 'presidential-election-winner-2028', 'Presidential Election Winner 2028', ['2', '596'], 9120044.5),
  ev('30002', 'world-cup-2026-winner', 'World Cup 2026 Winner', ['1'], 5400120.25),
  ev('16167', 'microstrategy-sell-any-bitcoin-in-2025', 'MicroStrategy sells any Bitcoin in 2026?', ['21', '120'], 148230.55, true),
  ev('30003', 'new-listings-this-week', 'New listings this week', ['120'], 1200),
]

/** Sample token ids (77 digits, far above 2^53) for the markets the samples show; others are generated alike. */
const SAMPLE_TOKENS: Readonly<Record<string, readonly string[]>> = {
  '516724': [
    '15353185604353847122370324954202969073036867278400776447048296624042585335546',
    '8829116457391127483902158761839461290128476112830932901839012839102938102938',
  ],
  '601122': [
    '32338220190071351435772801779725302244575775216413325951443816017994629993401',
    '1019344420318221300029911223344556677889900112233445566778899001122334455',
  ],
  '2169995': [
    '25714007960293389110960044475283546872601238755063051359394740854408462452120',
    '3192689304828767159232889612891719105504357313659012189260030438494464480574',
  ],
}

/** Every catalog market of the mock, each tied to one event by `_event`. */
export const MARKETS: readonly MockMarket[] = [
  mk('516723', '16085', 'will-no-fed-rate-cuts-happen-in-2025', 'Will no Fed rate cuts happen in 2025?', [0.12], 2300110.4),
  mk('516724', '16085', 'will-1-fed-rate-cut-happen-in-2025', 'Will 1 Fed rate cut happen in 2025?', [0.035], 4123311.02),
  mk('516725', '16085', 'will-2-fed-rate-cuts-happen-in-2025', 'Will 2 Fed rate cuts happen in 2025?', [0.64], 8011223.9),
  mk('601122', '28012', 'bitcoin-above-120k-on-august-15', 'Bitcoin above 120,000 on August 15?', [0.215], 88213.1),
  mk('601123', '28012', 'bitcoin-above-130k-on-august-15', 'Bitcoin above 130,000 on August 15?', [0.04], 40550.7),
  mk('700001', '30001', 'presidential-election-winner-2028', 'Who will win the 2028 presidential election?', [0.46, 0.41, 0.13], 9120044.5, {
    outcomes: ['Alice', 'Bob', 'Carol'],
  }),
  mk('700101', '30002', 'will-brazil-win-the-2026-world-cup', 'Will Brazil win the 2026 World Cup?', [0.17], 1900333.1),
  mk('700102', '30002', 'will-france-win-the-2026-world-cup', 'Will France win the 2026 World Cup?', [0.15], 1700222.9),
  mk('700103', '30002', 'will-spain-win-the-2026-world-cup', 'Will Spain win the 2026 World Cup?', [0.14], 1200444.2),
  mk('2169995', '16167', 'microstrategy-sells-any-bitcoin-by-may-31-2026', 'MicroStrategy sells any Bitcoin by May 31, 2026?', [0], 148230.551202, {
    closed: true,
    closedTime: '2026-06-04 00:34:19+00',
    umaResolutionStatuses: '["proposed","resolved"]',
  }),
  mk('800001', '30003', 'will-the-new-index-launch-by-friday', 'Will the new index launch by Friday?', [0.5], 1200, { newborn: true }),
  // An odd market: no order book yet, encoded fields null, empty and missing. It must come through, not be dropped.
  { ...mk('800002', '30003', 'odd-market-without-outcomes', 'Odd market without outcomes?', [], 0), outcomes: null, outcomePrices: '', clobTokenIds: undefined },
]

function ev(id: string, slug: string, title: string, tags: readonly string[], volume: number, closed = false): MockEvent {
  return {
    id,
    ticker: slug,
    slug,
    title,
    description: `This market will resolve according to ${title}`,
    active: true,
    closed,
    archived: false,
    liquidity: closed ? 0 : Math.round(volume * 0.05 * 100) / 100,
    volume,
    openInterest: closed ? 0 : Math.round(volume * 0.1),
    startDate: '2025-01-10T18:04:23.55Z',
    endDate: closed ? '2026-07-01T04:00:00Z' : '2026-12-31T12:00:00Z',
    createdAt: `2025-01-${String(10 + Number(id.slice(-1))).padStart(2, '0')}T18:04:23.549Z`,
    _tags: tags,
  }
}

function mk(
  id: string,
  event: string,
  slug: string,
  question: string,
  yesPrices: readonly number[],
  volume: number,
  extra: { outcomes?: readonly string[]; closed?: boolean; closedTime?: string; umaResolutionStatuses?: string; newborn?: boolean } = {},
): MockMarket {
  const labels = extra.outcomes ?? ['Yes', 'No']
  const prices = labels.length === 2 ? [yesPrices[0] ?? 0.5, 1 - (yesPrices[0] ?? 0.5)] : yesPrices
  const tokens = SAMPLE_TOKENS[id] ?? labels.map((_, i) => tokenId(id, i))
  const evt = EVENTS.find((e) => e.id === event)
  return {
    id,
    question,
    conditionId: conditionId(id),
    slug,
    description: `This market will resolve to "Yes" if ${question.replace(/\?$/, '')}.`,
    category: evt?._tags.includes('1') ? 'Sports' : evt?._tags.includes('2') ? 'Politics' : 'Crypto',
    outcomes: JSON.stringify(labels),
    outcomePrices: JSON.stringify(prices.map((p) => String(Math.round(p * 1000) / 1000))),
    clobTokenIds: JSON.stringify(tokens),
    volume: String(volume),
    volumeNum: volume,
    liquidity: String(Math.round(volume * 3) / 100),
    liquidityNum: Math.round(volume * 3) / 100,
    volume24hr: Math.round(volume * 0.02),
    bestBid: Math.max(0, (prices[0] ?? 0.5) - 0.005),
    bestAsk: Math.min(1, (prices[0] ?? 0.5) + 0.005),
    lastTradePrice: prices[0] ?? 0.5,
    spread: 0.01,
    active: true,
    closed: extra.closed ?? false,
    ...(extra.closedTime ? { closedTime: extra.closedTime, umaResolutionStatus: 'resolved' } : {}),
    ...(extra.umaResolutionStatuses ? { umaResolutionStatuses: extra.umaResolutionStatuses } : {}),
    negRisk: event === '16085',
    startDate: '2025-02-01T00:00:00Z',
    endDate: extra.closed ? '2026-07-01T04:00:00Z' : '2026-12-31T12:00:00Z',
    createdAt: `2025-02-${String(1 + (Number(id) % 27)).padStart(2, '0')}T12:00:00Z`,
    feeSchedule: { exponent: 1, rate: 0.04, takerOnly: true },
    events: [{ id: event, slug: evt?.slug, title: evt?.title }],
    _event: event,
    _tags: evt?._tags ?? [],
    ...(extra.newborn ? { _newborn: true } : {}),
  }
}

/** A 77-digit token id derived from the market id: unique, stable, and too large for a JS number. */
function tokenId(marketId: string, index: number): string {
  const seed = `${index + 1}${marketId.padStart(8, '0')}`
  return (seed.repeat(10) + '0').slice(0, 77)
}

function conditionId(marketId: string): string {
  return `0x${marketId.padStart(8, '0').repeat(8)}`
}

/** Events in wire form, each with its markets (without the mock's bookkeeping fields). */
export function eventsWithMarkets(): Record<string, unknown>[] {
  return EVENTS.map((e) => ({ ...strip(e), tags: TAGS.filter((t) => e._tags.includes(t.id)), markets: MARKETS.filter((m) => m._event === e.id).map(strip) }))
}

/** Removes the mock's bookkeeping fields (`_event`, `_tags`, ...) from a wire object. */
export function strip<T extends Record<string, unknown>>(o: T): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k, v]) => !k.startsWith('_') && v !== undefined))
}

/** The decoded token ids of a mock market. */
export function tokensOf(m: MockMarket): string[] {
  return m.clobTokenIds ? (JSON.parse(m.clobTokenIds) as string[]) : []
}

/** The decoded outcome prices of a mock market. */
export function pricesOf(m: MockMarket): number[] {
  return m.outcomePrices ? (JSON.parse(m.outcomePrices) as string[]).map(Number) : []
}

export { EVENTS }
