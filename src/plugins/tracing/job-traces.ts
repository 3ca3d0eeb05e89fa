/**
 * One OpenTelemetry trace per delivery, made from the job events (core/jobs/views/job-events.ts): the accept, each
 * try, the agent run and the delivery, as spans with the route, the delivery id and the job id as attributes.
 * A delivery's trace id is derived from its route and delivery id, so the spans of every try, on any instance
 * and after any restart, land in one trace without any state shared between them. Only `@opentelemetry/api`
 * is used (an optional peer): the application registers the SDK and exporter it already runs.
 */
import { createHash } from 'node:crypto'
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { Context, Span, Tracer } from '@opentelemetry/api'
import { JOB_CHANNEL, type JobEvent } from '../../core/jobs/views/job-events.js'

/** The OpenTelemetry API, as `import('@opentelemetry/api')` gives it. */
export type OpenTelemetryApi = typeof import('@opentelemetry/api')

/** Options of {@link traceJobs}. */
export interface JobTracesOptions {
  /** The tracer's name. Defaults to `hookpilot`. */
  readonly name?: string | undefined
}

/** The trace and root span ids of a delivery: the same on every instance, for every try. */
export function deliveryTraceIds(route: string, deliveryId: string): { traceId: string; spanId: string } {
  const digest = createHash('sha256').update(`${route}\u0000${deliveryId}`).digest('hex')
  return { traceId: digest.slice(0, 32), spanId: digest.slice(32, 48) }
}

/**
 * Starts making spans from the job events through `api`'s global tracer provider; returns the function that
 * stops. A try's span runs from its lease to its outcome; the agent's from the lease to the stored answer;
 * the delivery's from the answer to the outcome.
 *
 * @example
 * ```ts
 * import * as api from '@opentelemetry/api'
 * const stop = traceJobs(api) // after the application registered its tracer provider
 * ```
 */
export function traceJobs(api: OpenTelemetryApi, options: JobTracesOptions = {}): () => void {
  const tracer: Tracer = api.trace.getTracer(options.name ?? 'hookpilot')
  // Open spans of the tries this process runs, by job id; ended with the try (a crash leaves none behind).
  const open = new Map<string, { try: Span; step: Span }>()

  const parentOf = (e: JobEvent): Context => {
    const { traceId, spanId } = deliveryTraceIds(e.route, e.deliveryId)
    return api.trace.setSpanContext(api.context.active(), { traceId, spanId, traceFlags: api.TraceFlags.SAMPLED, isRemote: true })
  }
  const attributes = (e: JobEvent) => ({ 'hookpilot.route': e.route, 'hookpilot.delivery_id': e.deliveryId, 'hookpilot.job_id': e.job, 'hookpilot.event': e.event })
  const start = (name: string, e: JobEvent, parent: Context) => tracer.startSpan(name, { startTime: e.at, attributes: attributes(e) }, parent)

  const onEvent = (message: unknown) => {
    const e = message as JobEvent
    switch (e.kind) {
      case 'accepted':
      case 'superseded': {
        if (e.deliveryId === '') return
        start(`hookpilot.${e.kind}`, e, parentOf(e)).end(e.at)
        return
      }
      case 'leased': {
        const tried = start('hookpilot.try', e, parentOf(e))
        tried.setAttribute('hookpilot.attempt', e.attempts)
        open.set(e.job, { try: tried, step: start('hookpilot.agent', e, api.trace.setSpan(api.context.active(), tried)) })
        return
      }
      case 'answered': {
        const spans = open.get(e.job)
        if (!spans) return
        spans.step.end(e.at)
        spans.step = start('hookpilot.deliver', e, api.trace.setSpan(api.context.active(), spans.try))
        return
      }
      default: {
        const spans = open.get(e.job)
        if (!spans) return
        open.delete(e.job)
        const failed = e.kind === 'failed'
        for (const span of [spans.step, spans.try]) {
          span.setAttribute('hookpilot.outcome', e.kind)
          if (e.reason !== undefined) span.setAttribute('hookpilot.reason', e.reason)
          if (failed) span.setStatus({ code: api.SpanStatusCode.ERROR, ...(e.reason === undefined ? {} : { message: e.reason }) })
          span.end(e.at)
        }
      }
    }
  }
  subscribe(JOB_CHANNEL, onEvent)
  return () => {
    unsubscribe(JOB_CHANNEL, onEvent)
    for (const spans of open.values()) for (const span of [spans.step, spans.try]) span.end()
    open.clear()
  }
}
