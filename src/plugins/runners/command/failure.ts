/**
 * Turns a finished run of the agent program into the reason a failed {@link AgentResult} carries: what happened,
 * and which configuration key to change when a key can fix it.
 */
import { redact } from '../../shared/redact.js'
import type { RunProcessResult } from '../../../core/agents/run-process.js'

/** How much of the end of stderr goes into a reason: enough for a stack trace's head, short enough for a log line. */
const STDERR_TAIL_BYTES = 2048

/** What the reason needs to know about the configuration. */
export interface FailureContext {
  readonly program: string
  readonly timeoutMs: number
  readonly maxOutputBytes: number
}

/** The reason `result` is a failed run, or undefined when the program succeeded. */
export function failureReason(result: RunProcessResult, ctx: FailureContext): string | undefined {
  const { error } = result
  if (error !== undefined) {
    if (error.code === 'ENOENT') {
      return `program "${ctx.program}" was not found on PATH; install it or change agent.command in the configuration`
    }
    if (error.code === 'EACCES') {
      return `program "${ctx.program}" is not executable (EACCES); fix its permissions or change agent.command`
    }
    return `could not start "${ctx.program}": ${error.message}`
  }
  if (result.aborted) return `aborted: the run was cancelled and "${ctx.program}" was stopped`
  if (result.timedOut) {
    return `timed out after ${ctx.timeoutMs} ms and was killed; raise agent.timeout_seconds to allow longer runs`
  }
  if (result.truncated) {
    const cap = ctx.maxOutputBytes
    return `wrote more than ${cap} bytes to stdout and was stopped; raise agent.max_output_bytes if that much is expected`
  }
  if (result.code === 0) return undefined
  const how = result.code === null ? `was killed by ${result.signal ?? 'a signal'}` : `exited with code ${result.code}`
  // The reason is logged; an agent CLI that fails to authenticate may echo its key on stderr.
  const stderr = redact(stderrTail(result.stderr))
  return stderr === '' ? `${how} (no stderr)` : `${how}: ${stderr}`
}

/**
 * Whether another try of a failed run may succeed: not when the program cannot be started (not installed, not
 * executable: the configuration must change) nor when it wrote more than `max_output_bytes` (it would again);
 * yes when it exited non-zero, was killed or timed out (an agent CLI whose model API is down exits 1).
 */
export function retryableFailure(result: RunProcessResult): boolean {
  return result.error === undefined && !result.truncated
}

/** The last ~2 KB of stderr, trimmed, marked with `…` when cut. */
function stderrTail(stderr: string): string {
  const bytes = Buffer.from(stderr.trim(), 'utf8')
  if (bytes.length <= STDERR_TAIL_BYTES) return bytes.toString('utf8')
  // A cut through a multi-byte character decodes to U+FFFD; drop it rather than show garbage.
  return `…${bytes.subarray(bytes.length - STDERR_TAIL_BYTES).toString('utf8').replace(/^\uFFFD+/, '')}`
}
