/**
 * What the sdk bench serves: a realistic order book (30 levels a side, in the observed wire order: bids ascending,
 * asks descending) and the market channel's frames for 10 tokens. Shared by the bench and its server process.
 */

export const TOKEN = '15353185604353847122370324954202969073036867278400776447048296624042585335546'
export const MARKET = '0x' + '516724'.padStart(64, '0')
export const LEVELS = 30

const r3 = (n) => String(Math.round(n * 1000) / 1000)

/** The wire book of `tokenId`: bids 0.20..0.49, asks 0.51..0.80, sizes that vary. */
export function wireBook(tokenId = TOKEN) {
  const bids = Array.from({ length: LEVELS }, (_, i) => ({ price: r3(0.2 + i / 100), size: String(100 + ((i * 37) % 900) + 0.5) }))
  const asks = Array.from({ length: LEVELS }, (_, i) => ({ price: r3(0.8 - i / 100), size: String(150 + ((i * 53) % 700)) }))
  return {
    market: MARKET, asset_id: tokenId, timestamp: '1786483975529', hash: '5c0a5bcdcccf42ff5878000000000000000516724',
    bids, asks, min_order_size: '5', tick_size: '0.01', neg_risk: false, last_trade_price: '0.5',
  }
}

export const BOOK_BODY = JSON.stringify(wireBook())
export const MIDPOINT_BODY = JSON.stringify({ mid: '0.5' })

/** Ten token ids for the stream. */
export const STREAM_TOKENS = Array.from({ length: 10 }, (_, i) => `${i + 1}`.padEnd(77, '7'))

/**
 * The `i`-th delta of the stream: a new size at a level below the top of one token's book, with that book's
 * (unchanged) best bid and ask, as the channel sends them: so the client's top-of-book check passes every time.
 */
export function priceChange(i, timestamp) {
  const tokenId = STREAM_TOKENS[i % STREAM_TOKENS.length]
  const buy = i % 2 === 0
  const level = 1 + ((i * 7) % (LEVELS - 1))
  const price = buy ? r3(0.49 - level / 100) : r3(0.51 + level / 100)
  const size = String(10 + ((i * 13) % 500))
  return JSON.stringify({
    market: MARKET,
    price_changes: [{ asset_id: tokenId, price, size, side: buy ? 'BUY' : 'SELL', hash: (i >>> 0).toString(16).padStart(40, '0'), best_bid: '0.49', best_ask: '0.51' }],
    timestamp,
    event_type: 'price_change',
  })
}
