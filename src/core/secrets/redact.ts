/**
 * Keeps credentials out of error messages and logs: the secrets a caller knows, and anything shaped like a
 * well-known token, because a program's stderr or a server's error body may echo one. The gateway's secret set
 * (secrets.ts) feeds it every secret it knows; a target can also pass its own.
 */
import { secretForms } from './encodings.js'

/** What replaces a secret. */
export const REDACTED = '[redacted]'

// Shapes of credentials that show up in CLI output and API errors: GitHub tokens, Slack tokens, bearer/basic
// headers, Telegram bot tokens (`<digits>:<35 chars>`), OpenAI-style keys.
const TOKEN_SHAPES: readonly RegExp[] = [
  /\bgh[pousr]_[A-Za-z0-9]{16,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{16,}\b/g,
  /\bxox[abposr]-[A-Za-z0-9-]{8,}\b/g,
  /\b\d{6,12}:[A-Za-z0-9_-]{30,}\b/g,
  /\bsk-[A-Za-z0-9_-]{16,}\b/g,
  /\b(Bearer|Bot|Basic|token)\s+[A-Za-z0-9._~+/=-]{12,}/gi,
]

/**
 * `text` with every known secret (in each of its {@link secretForms}: base64, hex, URL-encoded, reversed) and
 * every token-shaped string replaced by {@link REDACTED}.
 *
 * @example
 * ```ts
 * redact('HTTP 401 for token ghp_abcdefghijklmnop1234', [])   // 'HTTP 401 for token [redacted]'
 * ```
 */
export function redact(text: string, secrets: readonly (string | undefined)[] = []): string {
  let out = text
  // Longest first, so a secret that contains another is replaced whole.
  const known = secrets.filter((s): s is string => s !== undefined && s.length >= 4).sort((a, b) => b.length - a.length)
  for (const secret of known) {
    for (const form of secretForms(secret)) out = out.split(form).join(REDACTED)
  }
  return redactTokenShapes(out)
}

// One scan decides whether any shape can be there: most log lines hold none.
const ANY_SHAPE = new RegExp(TOKEN_SHAPES.map((r) => r.source).join('|'), 'i')

/** `text` with every string shaped like a well-known token (GitHub, Slack, Telegram, OpenAI, bearer) replaced. */
export function redactTokenShapes(text: string): string {
  if (!ANY_SHAPE.test(text)) return text
  let out = text
  for (const shape of TOKEN_SHAPES) {
    out = out.replace(shape, (match, scheme: unknown) => (typeof scheme === 'string' ? `${scheme} ${REDACTED}` : REDACTED))
  }
  return out
}
