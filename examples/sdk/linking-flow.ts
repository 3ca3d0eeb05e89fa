// The linking flow: catalog market -> its outcomes -> order book and price by token -> history, trades and open
// interest by market. Base URLs come from GAMMA_URL / CLOB_URL / DATA_URL (or --gamma= --clob= --data= arguments)
// and default to the real services, so the same script runs against `startMockMarketServer()` in tests.
//
//   after `npm run build`, run it with any TypeScript runner, e.g. `npx tsx examples/sdk/linking-flow.ts [slug]`
import { createMarketClient, MarketError } from 'hookpilot/sdk'

const arg = (name: string): string | undefined =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3)

const pm = createMarketClient({
  gammaUrl: arg('gamma') ?? process.env['GAMMA_URL'],
  clobUrl: arg('clob') ?? process.env['CLOB_URL'],
  dataUrl: arg('data') ?? process.env['DATA_URL'],
})

const slug = process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 'will-1-fed-rate-cut-happen-in-2025'

try {
  const market = pm.market(await pm.markets.bySlug(slug))
  const { question, outcomes } = market.market
  console.log(question)
  for (const o of outcomes) console.log(`  ${o.label}: ${o.price ?? '-'}`)

  const [book, buy, history, trades, oi] = await Promise.all([
    market.yes.book(),
    market.yes.price('buy'),
    market.history({ interval: '1w', fidelity: 60 }),
    market.trades().limit(5).list(),
    market.openInterest(),
  ])
  console.log(`best bid ${book.bids[0]?.price ?? '-'}, best ask ${book.asks[0]?.price ?? '-'}, buy ${buy}`)
  console.log(`history: ${history.length} points, last ${history.at(-1)?.p ?? '-'}`)
  console.log(`trades: ${trades.map((t) => `${t.side} ${t.size}@${t.price}`).join(', ')}`)
  console.log(`open interest: ${oi ?? 'unknown'}`)
} catch (err) {
  if (MarketError.is(err)) {
    console.error(`${err.code}: ${err.message}`)
    process.exitCode = 1
  } else {
    throw err
  }
}
