/**
 * Redaction for plugins: {@link redact} (kept in core, which redacts every log line with it) and a stand-in
 * for an error's `cause` that carries nothing but its redacted message.
 */
import { redact } from '../../core/secrets/redact.js'

export { redact, REDACTED } from '../../core/secrets/redact.js'

/**
 * A stand-in for `cause` that keeps its name and (redacted) message but nothing else: HTTP clients put the
 * request URL, which for Telegram holds the bot token, on their errors and on nested causes.
 */
export function safeCause(cause: unknown, secrets: readonly (string | undefined)[], depth = 0): Error {
  const source = cause instanceof Error ? cause : new Error(String(cause))
  // A few levels carry the useful part (ky → fetch → the socket error); a cycle must not recurse forever.
  const nested = source.cause === undefined || depth >= 3 ? undefined : safeCause(source.cause, secrets, depth + 1)
  const copy = new Error(redact(source.message, secrets), nested === undefined ? undefined : { cause: nested })
  copy.name = source.name
  return copy
}
