// The cheaper call path of the transport (issue 11, "Speed"): each piece that replaced a per-call cost keeps what
// the piece before it did. No timing here: bench/sdk.js measures; these check behaviour only.
import { describe, expect, it } from 'vitest'
import { MarketTimeoutError, createMarketClient } from '../../src/sdk/index.js'
import { buildUrl, urlBuilder, type QueryInit } from '../../src/sdk/http.js'

const TOKEN = '10051672510051672510051672510051672510051672510051672510051672510051672510051'

/** A response whose body sends half a document and then nothing, whatever signal the request carries. */
function stalledBody(): Response {
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('[{"id": "1", "label": "half a bo'))
    },
  })
  return new Response(stream, { status: 200, headers: { 'content-type': 'application/json' } })
}

describe('urlBuilder', () => {
  const cases: [string, string, QueryInit | undefined][] = [
    ['https://clob.polymarket.com', '/book', { token_id: TOKEN }],
    ['https://clob.polymarket.com/', '/midpoint', { token_id: TOKEN, side: undefined }],
    ['http://localhost:1/api/gamma/', '/tags', { limit: 5, offset: 0, closed: false }],
    ['https://gamma-api.polymarket.com', '/markets', { id: ['1', '2'], tag_slug: 'crypto', q: 'fed rate cut?' }],
    ['https://gamma-api.polymarket.com', '/public-search', { q: 'élection & co/2026 (*~!\'_.-)', empty: '' }],
    ['https://gamma-api.polymarket.com', '/markets/slug/will-1-fed-rate-cut-happen-in-2025', undefined],
    ['https://gamma-api.polymarket.com', '/tags/slug/caf%C3%A9', {}],
    ['https://gamma-api.polymarket.com', '/a/../b/./c', { 'odd key': 'x' }],
    ['https://gamma-api.polymarket.com', '/with space/{x}', { n: 1.5 }],
    ['HTTPS://Gamma-API.polymarket.com:443', '/tags', { offset: 0 }],
    ['http://127.0.0.1:8080/base?fixed=1', '/tags', { offset: 0 }],
    ['https://data-api.polymarket.com', '/trades', { market: ['0xab,0xcd'], user: 'nobody', side: 'SELL' }],
  ]

  it('gives exactly what URL and URLSearchParams give, for plain and odd paths and queries alike', () => {
    for (const [base, path, query] of cases) {
      expect(urlBuilder(base)(path, query), `${base} ${path}`).toBe(buildUrl(base, path, query))
    }
  })

  it('throws the parser error for a base that is not a URL, at call time as before', () => {
    const build = urlBuilder('not a url')
    expect(() => build('/tags', undefined)).toThrow(TypeError)
  })
})

describe('the call path with a given fetch', () => {
  it('hands the fetch the Request with the client headers on it', async () => {
    const seen: Request[] = []
    const pm = createMarketClient({
      clobUrl: 'http://clob.invalid',
      userAgent: 'my-bot/2.0',
      fetch: async (input) => {
        if (input instanceof Request) seen.push(input)
        return Response.json({ mid: '0.5' })
      },
    })
    await expect(pm.token(TOKEN).midpoint()).resolves.toBe(0.5)
    expect(seen).toHaveLength(1)
    expect(seen[0]?.url).toBe(`http://clob.invalid/midpoint?token_id=${TOKEN}`)
    expect(seen[0]?.headers.get('user-agent')).toBe('my-bot/2.0')
    expect(seen[0]?.headers.get('accept')).toBe('application/json')
  })

  it('times out a body that stalls after the headers even when the fetch ignores the abort signal', async () => {
    let calls = 0
    const pm = createMarketClient({
      gammaUrl: 'http://gamma.invalid',
      timeout: 50,
      retry: { limit: 1, sleep: async () => {} },
      fetch: async () => (calls++, stalledBody()),
    })
    const err = await pm.tags.list().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(MarketTimeoutError)
    expect(err).toMatchObject({ message: expect.stringContaining('within 50 ms') })
    // Retried like a timeout before the headers.
    expect(calls).toBe(2)
  })

  it('rejects with the signal reason when aborted during a stalled body, even when the fetch ignores the signal', async () => {
    let answered!: () => void
    const headersIn = new Promise<void>((resolve) => (answered = resolve))
    const pm = createMarketClient({
      gammaUrl: 'http://gamma.invalid',
      timeout: false,
      fetch: async () => (answered(), stalledBody()),
    })
    const controller = new AbortController()
    const pending = pm.tags.list({ signal: controller.signal })
    await headersIn
    controller.abort(new Error('user gave up'))
    await expect(pending).rejects.toThrow('user gave up')
  })
})
