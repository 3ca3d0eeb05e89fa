/** `metrics:`: Prometheus metrics of the gateway (prom-client), as a plugin and as a function. */
export { gatewayMetrics, RUN_BUCKETS, type GatewayMetrics, type MetricsOptions } from './metrics.js'
export { metricsPlugin } from './plugin.js'
