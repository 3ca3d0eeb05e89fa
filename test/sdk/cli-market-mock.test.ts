/**
 * `hookpilot market mock` (issue 38, item 13): the mock services from any folder (the docs' `node -e
 * "import('hookpilot/sdk/mock')..."` worked only from the repository's root), its seed printed, and a move or a
 * trade pushed by hand over HTTP and on stdin reaches a market-channel subscriber and the REST book.
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { assertBuilt, CLI, runCli } from '../fixtures/cli.js'
import { MARKETS, tokensOf } from '../../src/sdk/mock/fixtures.js'

const SLUG = 'will-1-fed-rate-cut-happen-in-2025'
const FED_CUT = MARKETS.find((m) => m.slug === SLUG)
const YES = FED_CUT === undefined ? '' : (tokensOf(FED_CUT)[0] ?? '')

let stop: (() => void) | undefined
afterEach(() => {
  stop?.()
  stop = undefined
})

describe('hookpilot market mock', () => {
  it('serves from a folder outside the clone, prints its seed, and takes a move over HTTP and a trade on stdin', async () => {
    assertBuilt()
    const cwd = await mkdtemp(join(tmpdir(), 'hookpilot-market-mock-'))
    // A move a minute: only the hand-pushed changes show within the test.
    const child = spawn(process.execPath, [CLI, 'market', 'mock', '--port', '0', '--seed', '4242', '--tick-ms', '60000'], { cwd, stdio: ['pipe', 'pipe', 'pipe'] })
    stop = () => child.kill('SIGTERM')
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d.toString()))
    child.stderr.on('data', (d: Buffer) => (out += d.toString()))
    await expect.poll(() => out, { timeout: 15_000 }).toMatch(/ws_url: \S+\n/)
    expect(out).toContain('moving like a market from seed 4242 (--seed 4242 replays this run)')
    const url = /Mock market services on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1] ?? ''
    const wsUrl = /ws_url: (\S+)/.exec(out)?.[1] ?? ''
    expect(wsUrl).toBe(`${url.replace('http', 'ws')}/ws/market`)

    const frames: Array<Record<string, unknown>> = []
    const socket = new WebSocket(wsUrl)
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
    socket.on('message', (data: Buffer) => {
      const parsed = JSON.parse(data.toString()) as unknown
      for (const f of Array.isArray(parsed) ? parsed : [parsed]) frames.push(f as Record<string, unknown>)
    })
    socket.send(JSON.stringify({ type: 'market', assets_ids: [YES] }))
    await expect.poll(() => frames.length, { timeout: 5_000 }).toBeGreaterThan(0)

    const moved = await fetch(`${url}/admin/move`, { method: 'POST', body: JSON.stringify({ market: SLUG, price: 0.6 }) })
    expect(moved.status).toBe(200)
    const mid = (f: Record<string, unknown>) => {
      const b = f as { bids: Array<{ price: string }>; asks: Array<{ price: string }> }
      return (Number(b.bids.at(-1)?.price) + Number(b.asks.at(-1)?.price)) / 2
    }
    await expect.poll(() => frames.filter((f) => f['event_type'] === 'book').map(mid).at(-1), { timeout: 5_000 }).toBeCloseTo(0.6, 6)
    expect(await (await fetch(`${url}/clob/midpoint?token_id=${YES}`)).json()).toEqual({ mid: '0.6' })

    child.stdin.write(`trade ${SLUG} 8000 sell\n`)
    await expect.poll(() => frames.find((f) => f['event_type'] === 'last_trade_price'), { timeout: 5_000 }).toMatchObject({ size: '8000', side: 'SELL', asset_id: YES })
    await expect.poll(() => out, { timeout: 5_000 }).toContain(`traded 8000 shares of ${SLUG}`)
    // A bad body says what to send.
    const bad = await fetch(`${url}/admin/move`, { method: 'POST', body: JSON.stringify({ market: SLUG, price: 5 }) })
    expect(bad.status).toBe(400)
    expect(await bad.text()).toContain('a number between 0 and 1')
    socket.close()

    child.kill('SIGINT')
    const code = await new Promise((resolve) => child.once('exit', resolve))
    stop = undefined
    expect(code).toBe(0)
    expect(out).toContain('mock market stopped')
  })

  it('a port already taken is said with what to do, not as a stack trace', async () => {
    assertBuilt()
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const { port } = taken.address() as AddressInfo
    try {
      const result = await runCli(['market', 'mock', '--port', String(port)], { cwd: tmpdir() })
      expect(result.code).toBe(2)
      expect(result.stderr).toBe(`hookpilot market mock: port ${port} of 127.0.0.1 is taken (another mock?): stop it, or pick another with --port N (0 for any free one)\n`)
    } finally {
      taken.close()
    }
  })
})
