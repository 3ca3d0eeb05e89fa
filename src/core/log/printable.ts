/**
 * Text from a payload (a PR title, an agent's answer that echoes one) shown to a person: control characters are
 * written as escapes (`\x1b`), so an ESC sequence cannot clear or retitle the terminal of whoever reads a log
 * or runs `hookpilot jobs`, and a NUL or BEL cannot either.
 */

// C0 controls but tab (and line feed when kept), DEL, the C1 controls (0x80-0x9f), which terminals also obey,
// and the bidirectional controls, which show text in another order than it was written ("Trojan Source").
const BIDI = '\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069'
const CONTROL = new RegExp(`[\u0000-\u0008\u000a-\u001f\u007f-\u009f${BIDI}]`, 'g')
const CONTROL_BUT_NEWLINE = new RegExp(`[\u0000-\u0008\u000b-\u001f\u007f-\u009f${BIDI}]`, 'g')

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
