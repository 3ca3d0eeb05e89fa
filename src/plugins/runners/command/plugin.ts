/** `agent.runner: command`: its key is `agent.command`, the program and its arguments. */
import * as v from 'valibot'
import { ConfigError } from '../../../core/errors.js'
import { definePlugin } from '../../../core/plugin-api/plugin.js'
import { nonBlank, textList } from '../../../core/config/schema-kit.js'
import { agentEnv } from '../../../core/agents/agent-user.js'

/** The command runner: a program (an agent CLI) with the prompt on stdin, its stdout as the answer. */
export const commandPlugin = definePlugin({
  name: 'command',
  section: 'agent',
  selectedBy: { key: 'runner', value: 'command' },
  options: v.object({
    command: v.optional(v.pipe(textList, v.minLength(1, 'give the program to run, e.g. ["claude", "-p"]'))),
    // How stdout is read: the answer itself, or a CLI's JSON with the run's usage (docs/costs.md).
    output: v.optional(v.picklist(['text', 'claude-json', 'codex-jsonl'], 'expected text (stdout is the answer), claude-json (claude -p --output-format json) or codex-jsonl (codex exec --json)'), 'text'),
    // The model the CLI runs, for costs.prices and costs.model_limits when its output names none.
    model: v.optional(nonBlank('the model the CLI runs, e.g. gpt-5-codex')),
  }),
  async setup(options, ctx) {
    if (!options.command) {
      throw new ConfigError([{ path: 'agent.command', message: 'the command runner needs the program to run, e.g. command: ["claude", "-p"]' }])
    }
    const { commandAgent } = await import('./command-runner.js')
    const { hiddenProgramProblem, missingProgramProblem } = await import('../../../core/agents/find-program.js')
    const { commandPaths } = await import('./command-paths.js')
    const { agent } = ctx.config
    // The agent runs in its own folder: a script beside config.yaml is named by its full path.
    const command = commandPaths(options.command, ctx.baseDir)
    const program = command[0] ?? ''
    const env = agentEnv(ctx.childEnv, ctx.agentUser)
    const runner = commandAgent({
      command, timeoutMs: agent.timeout_seconds * 1000, maxOutputBytes: agent.max_output_bytes, cwd: ctx.workdir,
      env, runAs: ctx.agentUser, sandbox: ctx.agentSandbox, output: options.output, model: options.model,
    })
    return {
      name: 'command',
      agentRunner: {
        ...runner,
        // Looked up on the PATH the agent is given: a mistyped `claud` is refused at start, not found by the first job.
        async preflight() {
          // An agent CLI in the home folder (~/.local/bin) is there on the host and not in the sandbox, whose home is private.
          const problem = missingProgramProblem(program, ctx.childEnv, 'the agent command') ?? hiddenProgramProblem(command, env, ctx.agentSandbox, 'the agent command')
          return problem === undefined ? [] : [{ severity: 'problem', path: 'agent.command', message: problem }]
        },
      },
    }
  },
})
