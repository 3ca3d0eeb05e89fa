/**
 * The built-in plugins the gateway composes by default: verifiers, the in-memory idempotency store and rate
 * limiter, the `log` target and the `echo` and `command` agent runners. Each is a factory returning a plain object.
 */
export { githubSignatureVerifier } from './github-signature/index.js'
export { gitlabTokenVerifier } from './gitlab-token/index.js'
export { genericSignatureVerifier } from './generic-signature/index.js'
export { hmacSignatureVerifier, type HmacSchemeOptions } from './shared/hmac-verifier.js'
export { memoryIdempotencyStore, type MemoryIdempotencyOptions } from './memory-idempotency/index.js'
export { slidingWindowLimiter, type SlidingWindowOptions } from './sliding-window-limiter/index.js'
export { logDelivery } from './log-delivery/index.js'
export { echoAgent } from './echo-agent/index.js'
export { commandAgent, type CommandAgentOptions } from './command-agent/index.js'
export { runProcess, type RunProcessOptions, type RunProcessResult } from './shared/run-process.js'
