/** `tracing: { opentelemetry: true }`: one OpenTelemetry trace per delivery, through `@opentelemetry/api`. */
import * as v from 'valibot'
import { ConfigError } from '../../core/errors.js'
import { boolean, nonBlank } from '../../core/config/schema-kit.js'
import { definePlugin } from '../../core/plugin-api/plugin.js'

/**
 * The tracing plugin; off unless `tracing.opentelemetry: true`. It needs `@opentelemetry/api` installed beside
 * hookpilot and a tracer provider registered by the process (an SDK's `register()`, or
 * `node --import @opentelemetry/auto-instrumentations-node/register`); without one, spans go nowhere.
 */
export const tracingPlugin = definePlugin({
  name: 'tracing',
  section: 'tracing',
  options: v.object({
    opentelemetry: v.optional(boolean, false),
    tracer_name: v.optional(nonBlank('a name for the tracer, e.g. hookpilot'), 'hookpilot'),
  }),
  async setup(options) {
    if (!options.opentelemetry) return { name: 'tracing' }
    const api = await import('@opentelemetry/api').catch(() => undefined)
    if (!api) {
      throw new ConfigError([{ path: 'tracing.opentelemetry', message: 'needs the @opentelemetry/api package: npm install @opentelemetry/api (and the SDK and exporter your collector takes)' }])
    }
    const { traceJobs } = await import('./job-traces.js')
    let stop = () => {}
    return {
      name: 'tracing',
      async start() {
        stop = traceJobs(api, { name: options.tracer_name })
      },
      async close() {
        stop()
      },
    }
  },
})
