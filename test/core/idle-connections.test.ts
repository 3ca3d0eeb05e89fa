/**
 * Issue 25, item 18, on a real server: one client opening ~100 connections a second that never send a byte
 * used to fill `max_connections` and shut out deliveries and /health. Each silent connection is now closed
 * after `first_byte_timeout_seconds`, one address holds at most `max_connections_per_client`, and everyone
 * else is answered throughout. The flood comes from 127.0.0.2, the deliveries from 127.0.0.1 (two clients).
 */
import type { Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { githubHeaders, githubPayload } from '../fixtures/github.js'
import { SECRET } from '../fixtures/gateway.js'
import { health, rawConnections } from '../fixtures/raw-connections.js'
import { clientKey } from '../../src/core/http/connection-guard.js'

const raw = rawConnections()

/** A connection from `from` that sends nothing; `lifetime` resolves with how long the server kept it open. */
function idle(port: number, from: string): { socket: Socket; lifetime: Promise<number> } {
  const opened = Date.now()
  const socket = raw.connect({ port, host: '127.0.0.1', localAddress: from })
  socket.on('error', () => {})
  return { socket, lifetime: new Promise((resolve) => socket.on('close', () => resolve(Date.now() - opened))) }
}

async function deliver(port: number, id: string): Promise<number> {
  const body = githubPayload('pull_request', 'opened')
  const res = await fetch(`http://127.0.0.1:${port}/webhooks/pr`, { method: 'POST', headers: githubHeaders('pull_request', body, SECRET, id), body })
  await res.arrayBuffer()
  return res.status
}

describe('idle connections from one client', () => {
  it('a flood of silent connections (100 a second) shuts out no delivery and no /health, and each is closed in bounded time', async () => {
    const current = await raw.listen({ extra: { max_connections: 100, max_connections_per_client: 20, first_byte_timeout_seconds: 1 } })
    const { port } = current
    const flood: Promise<number>[] = []
    const statuses: number[] = []
    // Three seconds of flood: 10 connections every 100 ms, a delivery and a probe every 300 ms.
    for (let tick = 0; tick < 30; tick++) {
      for (let i = 0; i < 10; i++) flood.push(idle(port, '127.0.0.2').lifetime)
      if (tick % 3 === 0) statuses.push(await deliver(port, `flood-${tick}`), await health(port))
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(statuses).toEqual(Array.from({ length: 10 }, () => [202, 200]).flat())
    // Every flood connection was closed by the server: the ones past the client's share at once, the others
    // after the first-byte timeout (1 s, checked on a timer), well before headers_timeout_seconds (10 s).
    const lifetimes = await Promise.all(flood)
    expect(Math.max(...lifetimes)).toBeLessThan(3_000)
    expect(lifetimes.filter((ms) => ms < 500).length).toBeGreaterThan(200)
    await current.answered(10)
    const closed = current.log.lines.filter((l) => l.message.startsWith('closed a connection'))
    expect(closed.map((l) => l.message)).toContain('closed a connection: past max_connections_per_client')
    expect(closed.map((l) => l.message)).toContain('closed a connection: past first_byte_timeout_seconds')
    // Throttled: a flood of connections is not a flood of log lines.
    expect(closed.length).toBeLessThanOrEqual(4)
  })

  it('a connection that is sending is not cut by the first-byte timeout', async () => {
    const current = await raw.listen({ extra: { first_byte_timeout_seconds: 1 } })
    const { port } = current
    const socket = raw.connect({ port, host: '127.0.0.1' })
    const body = githubPayload('pull_request', 'opened')
    const head = Object.entries({ ...githubHeaders('pull_request', body, SECRET, 'slow-1'), 'content-length': String(body.length), host: 'x' })
      .map(([name, value]) => `${name}: ${value}\r\n`).join('')
    let answer = ''
    socket.on('data', (d) => (answer += d.toString('latin1')))
    socket.write(`POST /webhooks/pr HTTP/1.1\r\n${head}\r\n`)
    // The body follows after the first-byte timeout has passed: the connection had sent its head.
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    socket.write(body)
    await expect.poll(() => answer, { timeout: 5_000 }).toMatch(/^HTTP\/1\.1 202 /)
  })

  it('a proxy trust_proxy names speaks for many clients: its connections are not limited to one client\'s share', async () => {
    const current = await raw.listen({ extra: { max_connections_per_client: 5, first_byte_timeout_seconds: 30, trust_proxy: ['127.0.0.2'] } })
    const { port } = current
    const proxied = Array.from({ length: 12 }, () => idle(port, '127.0.0.2'))
    const other = Array.from({ length: 8 }, () => idle(port, '127.0.0.3'))
    const closedAtOnce = await Promise.all(other.slice(5).map((c) => c.lifetime))
    expect(closedAtOnce).toHaveLength(3)
    await expect.poll(() => current.gateway.usage().connections).toBe(17)
    expect([...proxied, ...other.slice(0, 5)].every(({ socket }) => !socket.destroyed)).toBe(true)
  })

  it('counts an IPv6 client by its /64 and an IPv4-mapped address as IPv4', () => {
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe(clientKey('2001:0db8:0001:0002:ffff:1:2:3'))
    expect(clientKey('2001:db8:1:2::1')).not.toBe(clientKey('2001:db8:1:3::1'))
    expect(clientKey('::1')).toBe('0:0:0:0::/64')
    expect(clientKey('::ffff:10.0.0.1')).toBe('10.0.0.1')
    expect(clientKey('10.0.0.1')).toBe('10.0.0.1')
  })
})
