/** `agent.runner: echo`: answers with its prompt (for trying the gateway without an agent). */
export { echoAgent } from './echo-runner.js'
export { echoPlugin } from './plugin.js'
