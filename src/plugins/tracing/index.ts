/** `tracing:`: OpenTelemetry traces of the job events, as a plugin and as a function. */
export { deliveryTraceIds, traceJobs, type JobTracesOptions, type OpenTelemetryApi } from './job-traces.js'
export { tracingPlugin } from './plugin.js'
export { JOB_CHANNEL, type JobEvent, type JobEventKind } from '../../core/jobs/views/job-events.js'
