/**
 * Prometheus metrics of one gateway, with prom-client, on the gateway's own listener. Names and labels are
 * fixed so dashboards and alerts can rely on them, and every label value comes from the configuration (route
 * and target names) or a fixed set: a request to a route that does not exist counts as `route="_unknown"`,
 * never as the name a sender made up (unbounded label values would exhaust memory).
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { GatewayEvents } from '../../core/events.js'
import { json, type GatewayResponse } from '../../core/http/responses.js'
import type { StateBackend } from '../../core/jobs/lifecycle/state-backend.js'
import type { Endpoint } from '../../core/http/endpoint.js'
import { matchesAnyToken } from '../shared/secure-compare.js'

/** Options of {@link gatewayMetrics}. */
export interface MetricsOptions {
  /** Where the metrics are served (default `/metrics`). */
  readonly path?: string | undefined
  /** When set, a scrape must send `Authorization: Bearer <token>`; without it the answer is 401. */
  readonly token?: string | undefined
  /** prom-client's default process metrics, prefixed `hookpilot_` (default true). */
  readonly processMetrics?: boolean | undefined
}

/** The metrics of one gateway: subscribe them to its events, serve them at their endpoint. */
export interface GatewayMetrics {
  readonly registry: Registry
  observe(events: GatewayEvents, state: StateBackend): void
  readonly endpoint: Endpoint
}

/** Buckets of an agent run's duration, up to 30 minutes. */
export const RUN_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 900, 1200, 1800]

const UNAUTHORIZED = Object.freeze(json(401, { error: 'Unauthorized' }, { 'www-authenticate': 'Bearer' }))

/**
 * Creates the metrics.
 *
 * @example
 * ```ts
 * const metrics = gatewayMetrics({ token: process.env.METRICS_TOKEN })
 * // GET /metrics with Authorization: Bearer <token>
 * ```
 */
export function gatewayMetrics(options: MetricsOptions = {}): GatewayMetrics {
  const registry = new Registry()
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: 'hookpilot_' })
  const requests = new Counter({
    name: 'hookpilot_webhook_requests_total', help: 'Answers of webhook paths, by route and HTTP status.', labelNames: ['route', 'status'], registers: [registry],
  })
  const runs = new Counter({
    name: 'hookpilot_agent_runs_total', help: 'Agent runs by route and outcome (ok, failed, timeout).', labelNames: ['route', 'outcome'], registers: [registry],
  })
  const runSeconds = new Histogram({
    name: 'hookpilot_agent_run_duration_seconds', help: 'How long agent runs took, by route.', labelNames: ['route'], buckets: RUN_BUCKETS, registers: [registry],
  })
  const deliveries = new Counter({
    name: 'hookpilot_deliveries_total', help: 'Delivery tries by target and outcome (delivered, failed, retried).', labelNames: ['target', 'outcome'], registers: [registry],
  })
  const finished = new Counter({
    name: 'hookpilot_jobs_finished_total', help: 'Jobs that ended, by route and outcome (done: delivered; skipped; superseded; failed).',
    labelNames: ['route', 'outcome'], registers: [registry],
  })
  const reconciled = new Counter({
    name: 'hookpilot_reconciled_deliveries_total', help: 'Deliveries a reconcile pass looked at, by result (redelivered, present, answered, error, would_redeliver).',
    labelNames: ['result'], registers: [registry],
  })
  const tokens = new Counter({
    name: 'hookpilot_agent_tokens_total', help: 'Tokens agent runs used, by route, model and kind (input, output, cached: the part of input read from the cache).',
    labelNames: ['route', 'model', 'kind'], registers: [registry],
  })
  const cost = new Counter({
    name: 'hookpilot_agent_cost_usd_total', help: 'What agent runs cost in US dollars (reported by the agent, or priced from costs.prices), by route and model.',
    labelNames: ['route', 'model'], registers: [registry],
  })
  const budgetRefusals = new Counter({
    name: 'hookpilot_budget_refusals_total', help: 'Runs a budget had no room for, by route and budget (pull_request, repository_day, installation_month).',
    labelNames: ['route', 'budget'], registers: [registry],
  })
  const storeErrors = new Counter({ name: 'hookpilot_store_errors_total', help: 'Writes the state store refused on the request path.', registers: [registry] })
  const models = boundedLabels(MAX_MODELS)
  let state: StateBackend | undefined
  new Gauge({
    name: 'hookpilot_jobs', help: 'Jobs in the state backend by state (queued, running).', labelNames: ['state'], registers: [registry],
    async collect() {
      if (!state) return
      const counts = await state.jobs.counts().catch(() => undefined)
      if (!counts) return // the store is down: hookpilot_store_errors_total and /ready say so
      this.set({ state: 'queued' }, counts.queued)
      this.set({ state: 'running' }, counts.running)
    },
  })

  return {
    registry,
    observe(events, backend) {
      state = backend
      events.on('request', (e) => requests.inc({ route: e.route ?? '_unknown', status: String(e.status) }))
      events.on('agentRun', (e) => {
        runs.inc({ route: e.route, outcome: e.outcome })
        runSeconds.observe({ route: e.route }, e.seconds)
      })
      events.on('agentUsage', (e) => {
        const model = models.label(e.model)
        tokens.inc({ route: e.route, model, kind: 'input' }, e.inputTokens)
        tokens.inc({ route: e.route, model, kind: 'output' }, e.outputTokens)
        if (e.cachedTokens > 0) tokens.inc({ route: e.route, model, kind: 'cached' }, e.cachedTokens)
        if (e.costUsd !== undefined) cost.inc({ route: e.route, model }, e.costUsd)
      })
      events.on('budgetRefused', (e) => budgetRefusals.inc({ route: e.route, budget: e.budget }))
      events.on('delivery', (e) => deliveries.inc({ target: e.target, outcome: e.outcome }))
      events.on('storeError', () => storeErrors.inc())
      events.on('jobFinished', (e) => finished.inc({ route: e.route, outcome: e.outcome }))
      events.on('reconciled', (e) => reconciled.inc({ result: e.result }))
    },
    endpoint: {
      path: options.path ?? '/metrics',
      async handle(req): Promise<GatewayResponse> {
        if (options.token !== undefined && !authorized(req.headers['authorization'], options.token)) return UNAUTHORIZED
        const text = await registry.metrics()
        return { status: 200, headers: { 'content-type': registry.contentType, 'content-length': String(Buffer.byteLength(text)) }, body: text }
      },
    },
  }
}

/**
 * Distinct model labels kept: a model name comes from the provider's answer (or a CLI's output), not the
 * configuration, so past this many every new one counts as `_other` (unbounded label values exhaust memory).
 */
const MAX_MODELS = 32

/** The first `max` distinct values label as themselves; later ones as `_other`. */
function boundedLabels(max: number): { label(value: string): string } {
  const seen = new Set<string>()
  return {
    label(value) {
      if (seen.has(value)) return value
      if (seen.size >= max) return '_other'
      seen.add(value)
      return value
    },
  }
}

/** A constant-time check of `Authorization: Bearer <token>`. */
function authorized(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)$/i.exec(header ?? '')
  return match?.[1] !== undefined && matchesAnyToken(match[1], [token])
}
