/**
 * What only a real socket shows: bodies over the cap cut while streaming (chunked, lying lengths), a body split
 * inside a multi-byte character, Express-style next(), slow clients, a taken port.
 */
import { request, createServer, type IncomingMessage } from 'node:http'
import { connect } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { GatewayError } from '../../src/index.js'
import { githubExample, githubHeaders } from '../fixtures/github.js'
import { SECRET, testGateway, type TestGateway } from '../fixtures/gateway.js'

let current: TestGateway | undefined
afterEach(async () => {
  await current?.gateway.close()
  current = undefined
})

async function started(extra: Record<string, unknown> = {}, prompt?: string) {
  current = await testGateway({ extra, routes: { pr: { secret: SECRET, events: ['pull_request'], ...(prompt ? { prompt } : {}) } } })
  const address = await current.gateway.listen({ port: 0 })
  return { ...current, port: address.port }
}

/** Sends `chunks` one by one (chunked unless headers give a length); resolves with the answer. */
function post(port: number, headers: Record<string, string>, chunks: readonly Buffer[]): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/webhooks/pr', headers }, (res: IncomingMessage) => {
      let body = ''
      res.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    let i = 0
    const next = () => {
      if (i === chunks.length) return req.end()
      req.write(chunks[i++], () => setImmediate(next))
    }
    next()
  })
}

describe('node:http adapter', () => {
  it('a client still writing an oversized body sees the 413, not a reset: the rest is read and dropped for a moment', async () => {
    const { port, runs } = await started({ max_body_bytes: 4096 })
    const chunk = Buffer.alloc(16 * 1024, 0x61)
    const outcome = await new Promise<{ status?: number; error?: string; flushed: boolean }>((resolve) => {
      let status: number | undefined
      let flushed = false
      let error: string | undefined
      const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/webhooks/pr', headers: { 'content-type': 'application/json' } }, (r) => {
        status = r.statusCode
        r.resume()
      })
      req.on('error', (err: NodeJS.ErrnoException) => (error = err.code ?? err.message))
      req.on('finish', () => (flushed = true))
      req.on('close', () => resolve({ ...(status === undefined ? {} : { status }), ...(error === undefined ? {} : { error }), flushed }))
      let sent = 0
      const pump = () => {
        while (sent < 2 * 1024 * 1024) {
          sent += chunk.length
          if (!req.write(chunk)) return void req.once('drain', pump)
        }
        req.end()
      }
      pump()
    })
    expect(outcome).toEqual({ status: 413, flushed: true })
    expect(runs).toHaveLength(0)
  })

  it('a chunked body that passes max_body_bytes is refused with 413 while it streams', async () => {
    const { port, runs } = await started({ max_body_bytes: 4096 })
    const chunk = Buffer.alloc(1024, 0x61)
    // Far more than the cap: the server must answer before the client is done, not buffer it all.
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/webhooks/pr', headers: { 'content-type': 'application/json' } }, (r) => {
        let body = ''
        r.setEncoding('utf8').on('data', (d: string) => (body += d)).on('end', () => resolve({ status: r.statusCode ?? 0, body }))
      })
      req.on('error', (err) => (req.destroyed ? undefined : reject(err)))
      let sent = 0
      const pump = () => {
        if (sent > 1024 * 1024 || req.destroyed) return
        sent += chunk.length
        req.write(chunk, () => setImmediate(pump))
      }
      pump()
    })
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body)).toEqual({ error: 'Payload too large' })
    expect(runs).toHaveLength(0)
  })

  it('a Content-Length over the cap is refused with 413 before any body is read', async () => {
    const { port } = await started({ max_body_bytes: 1000 })
    const res = await new Promise<number>((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', method: 'POST', path: '/webhooks/pr', headers: { 'content-length': '50000' } }, (r) => {
        r.resume()
        resolve(r.statusCode ?? 0)
      })
      req.on('error', reject)
      req.flushHeaders() // headers only: the body never comes
    })
    expect(res).toBe(413)
  })

  it('a Content-Length that lies (more bytes follow than declared) never reaches the agent', async () => {
    const { port, runs } = await started({ max_body_bytes: 1000 })
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`POST /webhooks/pr HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10\r\n\r\n`)
        socket.write('{"a":1}' + 'x'.repeat(5000))
      })
      let text = ''
      socket.on('data', (d) => (text += d.toString())).on('close', () => resolve(text)).on('error', () => resolve(text))
    })
    expect(answer).toMatch(/^HTTP\/1\.1 (401|400)/)
    expect(runs).toHaveLength(0)
  })

  it('a body split across chunks inside a multi-byte character is read intact', async () => {
    const { port, answered, runs } = await started({}, '{pull_request.title}')
    const example = structuredClone(githubExample('pull_request', 'opened')) as { pull_request: { title: string } }
    example.pull_request.title = 'Café ✓ naïve'
    const body = Buffer.from(JSON.stringify(example))
    const split = body.indexOf(Buffer.from('é')) + 1 // between the two bytes of é
    const headers = githubHeaders('pull_request', body, SECRET, 'split-1')
    const res = await post(port, headers, [body.subarray(0, split), body.subarray(split)])
    expect(res.status).toBe(202)
    await answered(1)
    expect(runs[0]?.prompt).toBe('Café ✓ naïve')
  })

  it('as Express/Connect middleware, paths that are not the gateway\'s go to next()', async () => {
    current = await testGateway()
    const { handler } = current.gateway
    const server = createServer((req, res) => handler(req, res, () => res.end('the app')))
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const { port } = server.address() as { port: number }
    try {
      expect(await (await fetch(`http://127.0.0.1:${port}/other`)).text()).toBe('the app')
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200)
      expect((await fetch(`http://127.0.0.1:${port}/webhooks/nope`, { method: 'POST' })).status).toBe(404)
    } finally {
      server.close()
    }
  })

  it('a client that never finishes its headers is cut off after headers_timeout_seconds', async () => {
    const { port } = await started({ headers_timeout_seconds: 1, request_timeout_seconds: 2 })
    const started_ = Date.now()
    const closedAfter = await new Promise<number>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('POST /webhooks/pr HTTP/1.1\r\nHost: x\r\n'))
      socket.on('close', () => resolve(Date.now() - started_)).on('error', () => {})
      socket.resume()
    })
    expect(closedAfter).toBeLessThan(10_000)
  })

  it('a client that sends its headers but never finishes its body is cut off after request_timeout_seconds', async () => {
    const { port, runs } = await started({ headers_timeout_seconds: 1, request_timeout_seconds: 2 })
    const begun = Date.now()
    const answer = await new Promise<{ text: string; after: number }>((resolve) => {
      let text = ''
      const socket = connect(port, '127.0.0.1', () => {
        socket.write('POST /webhooks/pr HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":')
      })
      socket.on('data', (d) => (text += d.toString())).on('close', () => resolve({ text, after: Date.now() - begun })).on('error', () => {})
    })
    expect(answer.after).toBeLessThan(10_000)
    expect(answer.text).toMatch(/^HTTP\/1\.1 408|^$/)
    expect(runs).toHaveLength(0)
  })

  it('a taken port is a ListenError naming platforms.webhook.extra.port', async () => {
    const { port } = await started()
    const second = await testGateway()
    try {
      const err = await second.gateway.listen({ port }).catch((e: unknown) => e)
      expect(GatewayError.is(err)).toBe(true)
      expect((err as GatewayError).code).toBe('ERR_LISTEN')
      expect((err as Error).message).toContain('platforms.webhook.extra.port')
      expect((err as Error).message).toContain(String(port))
      // the same gateway can then listen elsewhere
      expect((await second.gateway.listen({ port: 0 })).port).toBeGreaterThan(0)
    } finally {
      await second.gateway.close()
    }
  })
})
