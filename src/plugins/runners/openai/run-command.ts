/**
 * The one tool the openai runner offers, `run_command`: a command the model asks for runs only when its argv
 * starts with an allowed prefix (`["gh", "pr", "diff"]`), without a shell, with a timeout and an output cap.
 * A refusal is the tool's result, so the model learns what it may do instead of the run failing.
 */
import { runProcess } from '../../../core/agents/run-process.js'
import { redact } from '../../shared/redact.js'
import type { AgentSandbox } from '../../../core/types.js'

/** What commands may run, and their bounds. */
export interface CommandPolicy {
  /** Allowed argv prefixes; empty allows nothing. */
  readonly allow: readonly (readonly string[])[]
  readonly timeoutMs: number
  /** Most stdout bytes handed back to the model; the command is stopped past it. */
  readonly maxOutputBytes: number
  readonly env?: NodeJS.ProcessEnv | undefined
  readonly cwd?: string | undefined
  readonly runAs?: { readonly uid: number; readonly gid: number } | undefined
  /** The sandbox the commands run in (`agent.sandbox`); none by default. */
  readonly sandbox?: AgentSandbox | undefined
  /** Applied to output before the model sees it; GH_TOKEN's and GITHUB_TOKEN's values and token shapes by default. */
  readonly redact?: ((text: string) => string) | undefined
}

/** What one tool call did: the text for the model, and what to log. */
export interface ToolOutcome {
  readonly content: string
  readonly argv: readonly string[] | undefined
  readonly allowed: boolean
  /** Allowed, but the program could not be started: why (`ENOENT`, `EACCES`, ...). */
  readonly notStarted?: string | undefined
}

/** `allow_commands` entries (`"gh pr diff"` or `["gh", "pr", "diff"]`) as argv prefixes. */
export function allowList(entries: readonly (string | readonly string[])[]): string[][] {
  return entries
    .map((entry) => (typeof entry === 'string' ? entry.trim().split(/\s+/) : [...entry]))
    .filter((prefix) => prefix.length > 0 && prefix[0] !== '')
}

/** Whether `argv` starts with one of the prefixes, word for word (`gh pr diffx` does not match `gh pr diff`). */
export function isAllowed(argv: readonly string[], allow: readonly (readonly string[])[]): boolean {
  return allow.some((prefix) => prefix.length <= argv.length && prefix.every((word, i) => argv[i] === word))
}

/** The tool definition sent to the model. */
export function runCommandTool(allow: readonly (readonly string[])[]): object {
  const allowed = allow.map((p) => p.join(' ')).join('; ')
  return {
    type: 'function',
    function: {
      name: 'run_command',
      description: `Run one command and get its output. Only commands starting with one of these are allowed: ${allowed}. No shell: pipes, redirections and $(...) are not interpreted.`,
      parameters: {
        type: 'object',
        properties: {
          command: { type: 'array', items: { type: 'string' }, description: 'The program and its arguments, e.g. ["gh", "pr", "diff", "12", "--repo", "owner/repo"]' },
        },
        required: ['command'],
        additionalProperties: false,
      },
    },
  }
}

/** Runs one `run_command` call (its JSON `arguments`) under `policy`. Never throws. */
export async function runCommand(
  args: string,
  policy: CommandPolicy,
  signal: AbortSignal,
  onSpawn?: (pid: number) => void,
): Promise<ToolOutcome> {
  const argv = commandOf(args)
  if (argv === undefined) {
    return { content: 'error: arguments must be {"command": ["program", "arg", ...]}', argv: undefined, allowed: false }
  }
  if (!isAllowed(argv, policy.allow)) {
    const allowed = policy.allow.length === 0 ? 'none (agent.allow_commands is empty)' : policy.allow.map((p) => p.join(' ')).join('; ')
    return { content: `refused: this command is not allowed. Allowed command prefixes: ${allowed}`, argv, allowed: false }
  }
  const result = await runProcess(argv, {
    timeoutMs: policy.timeoutMs,
    maxOutputBytes: policy.maxOutputBytes,
    maxStderrBytes: 4096,
    signal,
    env: policy.env,
    cwd: policy.cwd,
    runAs: policy.runAs,
    sandbox: policy.sandbox,
    onSpawn,
  })
  const notStarted = result.error === undefined ? undefined : (result.error.code ?? 'error')
  return { content: describe(result, policy), argv, allowed: true, notStarted }
}

function describe(result: Awaited<ReturnType<typeof runProcess>>, policy: CommandPolicy): string {
  // Tokens the command's environment holds must not reach the model (or, through it, a public comment).
  const secrets = ['GH_TOKEN', 'GITHUB_TOKEN'].map((name) => (policy.env ?? process.env)[name])
  const clean = policy.redact ?? ((text: string) => redact(text, secrets))
  if (result.error !== undefined) {
    return result.error.code === 'ENOENT' ? 'error: program not found on PATH' : `error: could not start the program (${result.error.code ?? result.error.message})`
  }
  if (result.aborted) return 'error: the run was cancelled'
  if (result.timedOut) return `error: the command did not finish within ${policy.timeoutMs} ms and was stopped\n${clean(result.stdout)}`
  const cut = result.truncated ? `\n[output cut at ${policy.maxOutputBytes} bytes]` : ''
  if (result.truncated || result.code === 0) return `${clean(result.stdout)}${cut}` || '(no output)'
  const how = result.code === null ? `was killed by ${result.signal ?? 'a signal'}` : `exited with code ${result.code}`
  return `error: the command ${how}\n${clean(result.stderr.trim().slice(-2000))}\n${clean(result.stdout)}`.trimEnd()
}

/** argv from the call's arguments: `{"command": [...]}`, or a string split on whitespace (quotes are not interpreted). */
function commandOf(args: string): string[] | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(args)
  } catch {
    return undefined
  }
  const command = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>)['command'] : undefined
  const argv = typeof command === 'string' ? command.trim().split(/\s+/) : command
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a): a is string => typeof a === 'string') || argv[0] === '') {
    return undefined
  }
  return argv
}
