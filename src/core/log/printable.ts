/**
 * Text from a payload (a PR title, an agent's answer that echoes one) shown to a person: control characters are
 * written as escapes (`\x1b`), so an ESC sequence cannot clear or retitle the terminal of whoever reads a log
 * or runs `hookpilot jobs`, and a NUL or BEL cannot either.
 */
import { BIDI, escapeAfterJson } from './text.js'

// C0 controls but tab (and line feed when kept), DEL, the C1 controls (0x80-0x9f), which terminals also obey,
// the bidirectional controls, which show text in another order than it was written ("Trojan Source"), and the
// line and paragraph separators, which some terminals and editors break lines at.
const CONTROL = new RegExp(`[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029${BIDI}]`, 'g')
const CONTROL_BUT_NEWLINE = new RegExp(`[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029${BIDI}]`, 'g')

/** Options of {@link printable}. */
export interface PrintableOptions {
  /** Keep line feeds as they are (multi-line output); by default they are escaped too. */
  readonly keepNewlines?: boolean | undefined
}

/**
 * `text` with every control character but tab written as `\xNN` (a bidirectional control as `\uNNNN`).
 *
 * @example
 * ```ts
 * printable('title\u001b[2J') // 'title\\x1b[2J'
 * ```
 */
export function printable(text: string, options: PrintableOptions = {}): string {
  const pattern = options.keepNewlines ? CONTROL_BUT_NEWLINE : CONTROL
  return text.replace(pattern, (c) => {
    const code = c.charCodeAt(0)
    return code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`
  })
}

/**
 * `value` as JSON (indented by `indent`) with every character a terminal would obey written as a `\uNNNN`
 * escape: the same JSON to a parser, and nothing a payload's text can do to the terminal of whoever reads it.
 *
 * @example
 * ```ts
 * printableJson({ title: 'a\u202eb' }) // '{"title":"a\\u202eb"}'
 * ```
 */
export function printableJson(value: unknown, indent?: number): string {
  return escapeAfterJson(JSON.stringify(value, null, indent))
}
