/**
 * `hookpilot/testing`: the contract suites every built-in plugin passes, for plugin authors to run in their own
 * vitest, with the test doubles they need (a fake clock as the time seam, a logger that remembers its lines,
 * plugin and delivery contexts). Needs `vitest` in the author's devDependencies.
 *
 * @example
 * ```ts
 * // my-target.test.ts
 * import { deliveryTargetContract } from 'hookpilot/testing'
 * import { myTarget } from './index.js'
 * deliveryTargetContract('my-target', () => ({ target: myTarget(), sent: () => calls }))
 * ```
 * @packageDocumentation
 */
export { agentRunnerContract, type AgentRunnerContractOptions } from './agent-runner.js'
export { deliveryTargetContract, type DeliveryHarness, type DeliveryContractOptions } from './delivery-target.js'
export { rateLimiterContract } from './rate-limiter.js'
export { stateBackendContract, newJob, type BackendOptions, type StateBackendHarness } from './state-backend.js'
export { verifierContract, verifierContract as sourceContract, type VerifierContractOptions } from './verifier.js'
export { fakeClock, type FakeClock } from './clock.js'
export { recordingLogger, pluginContext, deliveryContext, type LogLine, type RecordingLogger } from './context.js'
export { setUpPlugin, type SetUpPluginOptions } from './set-up.js'
