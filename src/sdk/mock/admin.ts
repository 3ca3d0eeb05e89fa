/**
 * The mock's hand controls over HTTP (`startMockMarketServer({ admin: true })`, which `hookpilot market mock`
 * turns on): `POST /admin/move` puts a token's midpoint where you say, `POST /admin/trade` sends a trade of the
 * size you say, so an alert can be made to fire now rather than waited for. A market is named by its slug (its
 * first outcome's token, the one a watch of the slug reads) or by a token id. Off by default: the mock server is
 * also a test double, and an endpoint that moves prices is for the person driving it.
 */
import { MARKETS, tokensOf } from './fixtures.js'
import type { MarketChannel } from './market-channel.js'

/** Path prefix of the hand controls. */
export const ADMIN_PATH = '/admin/'

/** The token a slug or a token id names: a slug's first outcome; `undefined` for neither. */
export function tokenNamed(ref: string): string | undefined {
  if (/^\d{10,}$/.test(ref)) return ref
  const market = MARKETS.find((m) => m.slug === ref)
  return market === undefined ? undefined : tokensOf(market)[0]
}

/**
 * Answers a request under {@link ADMIN_PATH}: `move` with `{ market | token, price }` (0 < price < 1), `trade` with
 * `{ market | token, size, side? }` (side `BUY`, the default, or `SELL`). 400 with what to change for a bad body.
 */
export async function adminAnswer(request: Request, channel: Pick<MarketChannel, 'move' | 'trade'>): Promise<Response> {
  const action = new URL(request.url).pathname.slice(ADMIN_PATH.length)
  if (request.method !== 'POST' || (action !== 'move' && action !== 'trade')) {
    return answer(404, { error: 'use POST /admin/move {"market": SLUG or "token": ID, "price": 0.6} or POST /admin/trade {"market": SLUG, "size": 8000, "side": "BUY"}' })
  }
  const body = (await request.json().catch(() => undefined)) as Record<string, unknown> | undefined
  if (typeof body !== 'object' || body === null) return answer(400, { error: 'send a JSON object' })
  const ref = typeof body['market'] === 'string' ? body['market'] : typeof body['token'] === 'string' ? body['token'] : undefined
  const token = ref === undefined ? undefined : tokenNamed(ref)
  if (token === undefined) return answer(400, { error: `name an open market: "market" (a slug) or "token" (an id)${ref === undefined ? '' : `; "${ref}" is neither`}` })
  if (action === 'move') {
    const price = body['price']
    if (typeof price !== 'number' || !(price > 0 && price < 1)) return answer(400, { error: '"price" is a number between 0 and 1 (0.6 is 60 %)' })
    return channel.move(token, price) ? answer(200, { token, price }) : closed(token)
  }
  const size = body['size']
  const side = body['side'] ?? 'BUY'
  if (typeof size !== 'number' || !(size > 0)) return answer(400, { error: '"size" is a number of shares above 0' })
  if (side !== 'BUY' && side !== 'SELL') return answer(400, { error: '"side" is BUY or SELL' })
  return channel.trade(token, size, side) ? answer(200, { token, size, side }) : closed(token)
}

function closed(token: string): Response {
  return answer(404, { error: `token ${token} has no live book (a closed market?)` })
}

function answer(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } })
}
