/** `agent.runner: openai`: its keys beside the common ones of `agent:` (base_url, api_key, model, ...). */
import * as v from 'valibot'
import { definePlugin } from '../../../core/plugin-api/plugin.js'
import { boolean, integer, text, textList } from '../../../core/config/schema-kit.js'
import { agentEnv } from '../../../core/agents/agent-user.js'

/** The openai runner: any OpenAI-compatible chat-completions server, with an allow-listed `run_command` tool. */
export const openaiPlugin = definePlugin({
  name: 'openai',
  section: 'agent',
  selectedBy: { key: 'runner', value: 'openai' },
  secrets: ['api_key'],
  options: v.object({
    base_url: v.optional(text),
    api_key: v.optional(text),
    model: v.optional(text),
    system: v.optional(text),
    max_steps: v.optional(integer(1, 100), 8),
    max_commands_per_reply: v.optional(integer(1, 64), 4),
    allow_commands: v.optional(v.array(v.union([text, v.pipe(textList, v.minLength(1))], 'expected a command prefix: "gh pr diff" or ["gh", "pr", "diff"]')), []),
    command_timeout_seconds: v.optional(integer(1, 3600), 60),
    max_tool_output_bytes: v.optional(integer(1), 65_536),
    // A route in review mode gets the review document's schema as structured output; false for a server that refuses it.
    structured_output: v.optional(boolean, true),
  }),
  async setup(options, ctx) {
    const { openaiAgent } = await import('./openai-runner.js')
    return {
      name: 'openai',
      agentRunner: openaiAgent({
        baseUrl: options.base_url,
        apiKey: options.api_key,
        model: options.model,
        system: options.system,
        maxSteps: options.max_steps,
        maxCommandsPerReply: options.max_commands_per_reply,
        timeoutMs: ctx.config.agent.timeout_seconds * 1000,
        maxOutputBytes: ctx.config.agent.max_output_bytes,
        allowCommands: options.allow_commands,
        commandTimeoutMs: options.command_timeout_seconds * 1000,
        maxToolOutputBytes: options.max_tool_output_bytes,
        env: agentEnv(ctx.childEnv, ctx.agentUser),
        runAs: ctx.agentUser,
        sandbox: ctx.agentSandbox,
        cwd: ctx.workdir,
        redact: ctx.redact,
        structuredOutput: options.structured_output,
      }),
    }
  },
})
