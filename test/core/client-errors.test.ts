/**
 * Node's own answers on the server `listen()` starts (issue 13.12): malformed HTTP and slow requests are
 * answered JSON like every other error, and a signed body followed by junk on the same connection
 * (pipelining garbage) is not accepted behind the client's back.
 */
import { createServer } from 'node:http'
import { connect, type AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { githubHeaders, githubPayload } from '../fixtures/github.js'
import { SECRET, testGateway, type TestGateway } from '../fixtures/gateway.js'

let current: TestGateway | undefined
afterEach(async () => {
  await current?.gateway.close()
  current = undefined
})

async function started(extra: Record<string, unknown> = {}) {
  current = await testGateway({ extra })
  const { port } = await current.gateway.listen({ port: 0 })
  return { ...current, port }
}

/** Writes `bytes` on a fresh connection and resolves with everything read until it closes. */
function exchange(port: number, bytes: string | Buffer): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes))
    socket.on('data', (d) => (text += d.toString('latin1'))).on('close', () => resolve(text)).on('error', () => resolve(text))
  })
}

/** Status, headers (lower-cased) and body of the first answer in `text`. */
function firstAnswer(text: string): { status: number; headers: Record<string, string>; body: string } {
  const [head = '', ...rest] = text.split('\r\n\r\n')
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
  const length = Number(headers['content-length'] ?? 0)
  return { status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n').slice(0, length) }
}

describe("node's own answers", () => {
  it('a malformed request line is 400 JSON, logged once per window without what was sent', async () => {
    const { port, log } = await started()
    for (let i = 0; i < 20; i++) {
      const answer = firstAnswer(await exchange(port, 'GARBAGE \u001b[2J nonsense\r\n\r\n'))
      expect(answer).toMatchObject({ status: 400, headers: { 'content-type': 'application/json', connection: 'close' } })
      expect(JSON.parse(answer.body)).toEqual({ error: 'Bad request' })
    }
    const lines = log.lines.filter((l) => l.message.startsWith('client error'))
    expect(lines).toEqual([{ level: 'warn', message: 'client error: answered 400', fields: { code: expect.stringMatching(/^HPE_/), client: '127.0.0.1' } }])
    expect(log.text()).not.toContain('GARBAGE')
  })

  it('an embedder\'s own server gets the same answers through gateway.clientError', async () => {
    current = await testGateway()
    const server = createServer(current.gateway.handler).on('clientError', current.gateway.clientError)
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const answer = firstAnswer(await exchange((server.address() as AddressInfo).port, 'NOT HTTP\r\n\r\n'))
      expect(answer).toMatchObject({ status: 400, headers: { 'content-type': 'application/json' } })
      expect(JSON.parse(answer.body)).toEqual({ error: 'Bad request' })
    } finally {
      server.close()
    }
  })

  it('headers over node\'s limit are 431 JSON', async () => {
    const { port } = await started()
    const answer = firstAnswer(await exchange(port, `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`))
    expect(answer.status).toBe(431)
    expect(JSON.parse(answer.body)).toEqual({ error: 'Request header fields too large' })
  })

  it('a body that does not arrive within request_timeout_seconds is 408 JSON', async () => {
    const { port, runs } = await started({ headers_timeout_seconds: 1, request_timeout_seconds: 2 })
    const text = await exchange(port, 'POST /webhooks/pr HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":')
    const answer = firstAnswer(text)
    expect(answer).toMatchObject({ status: 408, headers: { 'content-type': 'application/json' } })
    expect(JSON.parse(answer.body)).toEqual({ error: 'Request timeout' })
    expect(runs).toHaveLength(0)
    await expect.poll(() => current!.gateway.usage().unverifiedBytes).toBe(0)
  })

  it('a signed body followed by junk on the same connection is refused, not accepted while the client sees 400', async () => {
    const { port, runs, state } = await started()
    const body = githubPayload('pull_request', 'opened')
    const headers = { ...githubHeaders('pull_request', body, SECRET, 'pipelined-1'), 'content-length': String(body.length), host: 'x' }
    const head = `POST /webhooks/pr HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`
    const text = await exchange(port, Buffer.concat([Buffer.from(head), body, Buffer.from('\u0000\u0001 junk that is no request\r\n\r\n')]))
    const answer = firstAnswer(text)
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toEqual({ error: 'Bad request' })
    // Exactly one answer: the client is told what happened to its request.
    expect(text.match(/HTTP\/1\.1 /g)).toHaveLength(1)
    expect(await state.jobs.list()).toEqual([])
    expect(runs).toHaveLength(0)

    // The same request alone is accepted (the junk, not the request, was the problem).
    const alone = firstAnswer(await exchange(port, Buffer.concat([Buffer.from(head.replace('pipelined-1', 'pipelined-2').replace('HTTP/1.1\r\n', 'HTTP/1.1\r\nConnection: close\r\n')), body])))
    expect(alone.status).toBe(202)
  })
})
