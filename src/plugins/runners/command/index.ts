/** `agent.runner: command`: a CLI agent run without a shell, the prompt on stdin. */
export { commandAgent, type CommandAgentOptions } from './command-runner.js'
export { commandPlugin } from './plugin.js'
