/** `agent.runner: openai`: an OpenAI-compatible chat API, with an allow-list of commands as its tools. */
export { openaiAgent, type OpenaiAgentOptions } from './openai-runner.js'
export { openaiPlugin } from './plugin.js'
