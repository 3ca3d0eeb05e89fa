/** `metrics: { enabled, path, token }`: Prometheus metrics on the gateway's own listener. */
import * as v from 'valibot'
import { definePlugin } from '../../core/plugin-api/plugin.js'
import { boolean, nonBlank, text } from '../../core/config/schema-kit.js'

/** The metrics plugin; off unless `metrics.enabled: true`. */
export const metricsPlugin = definePlugin({
  name: 'metrics',
  section: 'metrics',
  secrets: ['token'],
  options: v.object({
    enabled: v.optional(boolean, false),
    path: v.optional(v.pipe(nonBlank('the path, e.g. /metrics'), v.startsWith('/', 'a path starting with /, e.g. /metrics')), '/metrics'),
    token: v.optional(text),
  }),
  async setup(options) {
    if (!options.enabled) return { name: 'metrics' }
    const { gatewayMetrics } = await import('./metrics.js')
    const token = options.token?.trim() ? options.token : undefined
    const metrics = gatewayMetrics({ path: options.path, token })
    return {
      name: 'metrics',
      endpoints: [metrics.endpoint],
      observe: (events, ctx) => metrics.observe(events, ctx.state),
      async close() {
        metrics.registry.clear()
      },
    }
  },
})
