// The linking flow, live: a catalog market -> its tokens -> their order books kept from the market channel.
// Base URLs come from GAMMA_URL / CLOB_URL / WS_URL and default to the real services; `--updates=n` stops after n
// book updates (default: until Ctrl-C), so the same script runs against `startMockMarketServer()` in tests.
//
//   after `npm run build`, run it with any TypeScript runner, e.g. `npx tsx examples/sdk/live-book.ts [slug]`
import { createMarketClient, MarketError } from 'hookpilot/sdk'

const arg = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)

const pm = createMarketClient({ gammaUrl: process.env['GAMMA_URL'], clobUrl: process.env['CLOB_URL'], wsUrl: process.env['WS_URL'] })
const slug = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'will-1-fed-rate-cut-happen-in-2025'
const updates = Number(arg('updates') ?? Infinity)

const controller = new AbortController()
process.once('SIGINT', () => controller.abort())

try {
  const market = pm.market(await pm.markets.bySlug(slug))
  const label = new Map(market.market.outcomes.map((o) => [o.tokenId, o.label]))
  console.log(market.market.question)
  let seen = 0
  for await (const { tokenId, book, source } of pm.watchBooks(market, { signal: controller.signal })) {
    const [bid, ask] = [book.bids[0], book.asks[0]]
    console.log(`${label.get(tokenId)} ${source}: best bid ${bid?.price ?? '-'} x ${bid?.size ?? '-'}, best ask ${ask?.price ?? '-'} x ${ask?.size ?? '-'}`)
    if (++seen >= updates) break
  }
} catch (err) {
  if (MarketError.is(err)) {
    console.error(`${err.code}: ${err.message}`)
    process.exitCode = 1
  } else {
    throw err
  }
}
