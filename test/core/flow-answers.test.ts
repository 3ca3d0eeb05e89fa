/**
 * The one place a webhook's outcome becomes HTTP: each value the pipeline answers (and each admission inside
 * it) maps to the status, headers and body docs/requests.md gives, byte for byte.
 */
import { describe, expect, it } from 'vitest'
import { answerOf } from '../../src/core/http/flow.js'
import type { Admission } from '../../src/core/pipeline/admit.js'
import type { PipelineResult } from '../../src/core/pipeline/pipeline.js'

const admitted = (admission: Admission): PipelineResult => ({ kind: 'admitted', route: 'pr', event: 'pull_request', deliveryId: 'd-1', admission })

/** The answer as it goes on the wire: its status, its headers (lengths checked against the body) and body. */
function wire(result: PipelineResult) {
  const answer = answerOf(result)
  expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.body)))
  return { status: answer.status, headers: answer.headers, body: answer.body }
}

const jsonHeaders = (body: string, more: Record<string, string> = {}) => ({
  'content-type': 'application/json', ...more, 'content-length': String(Buffer.byteLength(body)),
})

describe('answerOf: each admission to its answer', () => {
  it('accepted: 202 naming the route, event and delivery', () => {
    const body = '{"status":"accepted","route":"pr","event":"pull_request","delivery_id":"d-1"}'
    expect(wire(admitted({ kind: 'accepted', jobId: '7' }))).toEqual({ status: 202, headers: jsonHeaders(body), body })
  })

  it('deferred: 202 with the moment it runs, as an ISO time', () => {
    const runAt = Date.UTC(2026, 0, 2, 3, 4, 5, 600)
    const body = '{"status":"deferred","route":"pr","event":"pull_request","delivery_id":"d-1","run_at":"2026-01-02T03:04:05.600Z"}'
    expect(wire(admitted({ kind: 'deferred', jobId: '7', runAt }))).toEqual({ status: 202, headers: jsonHeaders(body), body })
  })

  it('duplicate: 200 naming the delivery', () => {
    const body = '{"status":"duplicate","delivery_id":"d-1"}'
    expect(wire(admitted({ kind: 'duplicate' }))).toEqual({ status: 200, headers: jsonHeaders(body), body })
  })

  it('rate_limited: 429 with Retry-After in the seconds the limit gave', () => {
    const body = '{"error":"Rate limit exceeded"}'
    expect(wire(admitted({ kind: 'rate_limited', retryAfterSeconds: 17 }))).toEqual({ status: 429, headers: jsonHeaders(body, { 'retry-after': '17' }), body })
  })

  it('queue_full: 503 with Retry-After 30', () => {
    const body = '{"error":"Queue full"}'
    expect(wire(admitted({ kind: 'queue_full' }))).toEqual({ status: 503, headers: jsonHeaders(body, { 'retry-after': '30' }), body })
  })

  it('store_unavailable: 503 with Retry-After 10, and nothing of the store\'s error in the body', () => {
    const body = '{"error":"State store unavailable"}'
    const answer = wire(admitted({ kind: 'store_unavailable', reason: 'SQLITE_FULL: database or disk is full' }))
    expect(answer).toEqual({ status: 503, headers: jsonHeaders(body, { 'retry-after': '10' }), body })
  })
})

describe('answerOf: what never reaches admission', () => {
  it('ignored: 200 with the event and the rule that declined it', () => {
    const body = '{"status":"ignored","event":"push","reason":"event \\"push\\" is not in the route\'s events [pull_request]"}'
    const result: PipelineResult = { kind: 'ignored', event: 'push', reason: 'event "push" is not in the route\'s events [pull_request]' }
    expect(wire(result)).toEqual({ status: 200, headers: jsonHeaders(body), body })
  })

  it('a bad signature: 401', () => {
    const body = '{"error":"Invalid signature"}'
    expect(wire({ kind: 'rejected', reason: 'invalid_signature' })).toEqual({ status: 401, headers: jsonHeaders(body), body })
  })

  it('a body that is not a JSON object: 400', () => {
    const body = '{"error":"Cannot parse body"}'
    expect(wire({ kind: 'rejected', reason: 'cannot_parse' })).toEqual({ status: 400, headers: jsonHeaders(body), body })
  })
})
