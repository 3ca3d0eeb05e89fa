/**
 * Issue 21, item 3: every transition of a job is published on `node:diagnostics_channel`, in order, and the
 * tracing plugin makes one OpenTelemetry trace per delivery from them (an in-memory exporter stands in for an
 * operator's collector).
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import * as api from '@opentelemetry/api'
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base'
import { afterEach, describe, expect, it } from 'vitest'
import { JOB_CHANNEL, type JobEvent } from '../../src/core/jobs/views/job-events.js'
import { deliveryTraceIds, traceJobs } from '../../src/plugins/tracing/job-traces.js'
import { testGateway, SECRET } from '../fixtures/gateway.js'
import { githubHeaders, githubPayload } from '../fixtures/github.js'

const body = githubPayload('pull_request', 'opened')
const request = (id: string) => ({ method: 'POST', path: '/webhooks/pr', headers: githubHeaders('pull_request', body, SECRET, id), body })

const seen: JobEvent[] = []
const listen = (message: unknown) => void seen.push(message as JobEvent)
afterEach(() => {
  unsubscribe(JOB_CHANNEL, listen)
  seen.length = 0
})

describe('job events', () => {
  it('the channel sees every transition of a job in order: accepted, leased, answered, delivered; a failure and a retry too', async () => {
    subscribe(JOB_CHANNEL, listen)
    const { gateway, idle } = await testGateway({
      agent: (input) => {
        if (input.deliveryId === 'd-fail') return { ok: false, reason: 'the model is down', retryable: false }
        if (input.deliveryId === 'd-retry') return { ok: false, reason: 'the model timed out' }
        return { ok: true, text: 'fine' }
      },
    })
    const of = (delivery: string) => seen.filter((e) => e.deliveryId === delivery).map((e) => e.kind)
    expect((await gateway.handle(request('d-ok'))).status).toBe(202)
    await idle()
    expect((await gateway.handle(request('d-fail'))).status).toBe(202)
    await idle()
    expect((await gateway.handle(request('d-retry'))).status).toBe(202)
    await expect.poll(() => of('d-retry')).toEqual(['accepted', 'leased', 'retried'])
    await gateway.close()
    expect(of('d-ok')).toEqual(['accepted', 'leased', 'answered', 'delivered'])
    expect(of('d-fail')).toEqual(['accepted', 'leased', 'failed'])
    expect(seen.find((e) => e.kind === 'failed')).toMatchObject({ route: 'pr', reason: 'the model is down', attempts: 1 })
    // Names and times only: no payload, no answer.
    expect(JSON.stringify(seen)).not.toContain('fine')
  })

  it('the tracing plugin\'s traceJobs makes one trace per delivery: accept, try, agent run, delivery', async () => {
    const exporter = new InMemorySpanExporter()
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
    api.trace.setGlobalTracerProvider(provider)
    const stop = traceJobs(api)
    try {
      const { gateway, idle } = await testGateway()
      for (const id of ['t-1', 't-2']) expect((await gateway.handle(request(id))).status).toBe(202)
      await idle()
      await gateway.close()
    } finally {
      stop()
      api.trace.disable()
    }
    const spans = exporter.getFinishedSpans()
    for (const delivery of ['t-1', 't-2']) {
      const mine = spans.filter((s) => s.attributes['hookpilot.delivery_id'] === delivery)
      expect(mine.map((s) => s.name).sort()).toEqual(['hookpilot.accepted', 'hookpilot.agent', 'hookpilot.deliver', 'hookpilot.try'])
      expect(new Set(mine.map((s) => s.spanContext().traceId))).toEqual(new Set([deliveryTraceIds('pr', delivery).traceId]))
      const tried = mine.find((s) => s.name === 'hookpilot.try')
      expect(mine.find((s) => s.name === 'hookpilot.agent')?.parentSpanContext?.spanId).toBe(tried?.spanContext().spanId)
      expect(tried?.attributes['hookpilot.outcome']).toBe('delivered')
    }
  })
})
