/**
 * The slow-upload attack of issue 13.1, on a real server: many connections each send most of a large body
 * with a forged signature, then wait. The bytes held for unverified bodies stay under `max_unverified_bytes`
 * (the gateway's own accounting, read while the attack goes on), the uploads past it are answered 503 with
 * Retry-After at once, connections past `max_connections` too, and /health is answered throughout.
 */
import type { Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { signGithub } from '../fixtures/github.js'
import { health, rawConnections } from '../fixtures/raw-connections.js'

const MB = 1024 * 1024
const raw = rawConnections()

/** An upload that sends its headers and `sent` bytes of a `declared`-byte body, then waits; resolves with what came back. */
function slowUpload(port: number, declared: number, sent: number): { answer: Promise<string>; socket: Socket } {
  const socket = raw.connect({ port, host: '127.0.0.1' })
  const answer = new Promise<string>((resolve) => {
    let text = ''
    socket.on('data', (d) => {
      text += d.toString('latin1')
      if (text.includes('\r\n\r\n')) resolve(text)
    })
    socket.on('close', () => resolve(text)).on('error', () => resolve(text))
  })
  socket.on('connect', () => {
    socket.write(
      `POST /webhooks/pr HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-GitHub-Event: pull_request\r\n` +
        `X-Hub-Signature-256: ${signGithub('forged', 'wrong')}\r\nContent-Length: ${declared}\r\n\r\n`,
    )
    socket.write(Buffer.alloc(sent, 0x20))
  })
  return { answer, socket }
}

describe('limits under a slow-upload flood', () => {
  it('unverified bodies never hold more than max_unverified_bytes; uploads past it get 503 with Retry-After; /health answers', async () => {
    const current = await raw.listen({ extra: { max_body_bytes: MB, max_unverified_bytes: 4 * MB, request_timeout_seconds: 60 } })
    const { port } = current
    const uploads = Array.from({ length: 40 }, () => slowUpload(port, MB, 900 * 1024))
    let highest = 0
    const watch = setInterval(() => (highest = Math.max(highest, current?.gateway.usage().unverifiedBytes ?? 0)), 1)

    // Every upload is either held (its 900 KB within the budget) or answered 503.
    const answered: string[] = []
    for (const upload of uploads) void upload.answer.then((a) => answered.push(a))
    await expect.poll(() => current.gateway.usage().unverifiedBytes + answered.length * 900 * 1024, { timeout: 20_000, interval: 20 })
      .toBeGreaterThanOrEqual(40 * 900 * 1024 - 4 * MB)
    await expect.poll(() => answered.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(36)
    clearInterval(watch)

    expect(highest).toBeLessThanOrEqual(4 * MB)
    expect(current.gateway.usage().unverifiedBytes).toBeLessThanOrEqual(4 * MB)
    for (const answer of answered) {
      expect(answer).toMatch(/^HTTP\/1\.1 503 /)
      expect(answer).toMatch(/\r\nretry-after: 5\r\n/i)
      expect(answer).toMatch(/\r\ncontent-type: application\/json\r\n/i)
    }
    // The held uploads are still waiting, and the gateway still answers its probes.
    expect(await health(port)).toBe(200)
    expect(current.log.lines.filter((l) => l.message.includes('max_unverified_bytes'))).toHaveLength(1)

    // Gone, they give their bytes back.
    for (const { socket } of uploads) socket.destroy()
    await expect.poll(() => current.gateway.usage().unverifiedBytes, { timeout: 10_000 }).toBe(0)
    expect(current.runs).toHaveLength(0)
  }, 60_000) // its polls wait up to 20 + 20 + 10 s: a poll that gives up says what it saw, a test timeout would not

  it('a Content-Length the budget cannot hold is answered 503 before any of its body is read', async () => {
    const current = await raw.listen({ extra: { max_body_bytes: 2 * MB, max_unverified_bytes: MB } })
    const { port } = current
    const { answer } = slowUpload(port, 2 * MB - 1, 0)
    expect(await answer).toMatch(/^HTTP\/1\.1 503 /)
    expect(current.gateway.usage().unverifiedBytes).toBe(0)
  })

  it('connections past max_connections get 503 at once while the first ones wait; /health is still answered', async () => {
    const current = await raw.listen({ extra: { max_connections: 10, request_timeout_seconds: 60 } })
    const { port } = current
    const first = Array.from({ length: 10 }, () => slowUpload(port, 1000, 10))
    await expect.poll(() => current.gateway.usage().connections, { timeout: 10_000 }).toBe(10)
    const more = Array.from({ length: 5 }, () => slowUpload(port, 1000, 10))
    for (const { answer } of more) expect(await answer).toMatch(/^HTTP\/1\.1 503 [^]*retry-after: 5/i)
    expect(await health(port)).toBe(200)
    // The first ten are still open and unanswered.
    expect(first.every(({ socket }) => !socket.destroyed)).toBe(true)
    expect(current.log.lines.filter((l) => l.message.includes('max_connections'))).toHaveLength(1)
  })
})
