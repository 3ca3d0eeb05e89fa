/**
 * Text from a payload (a PR title, an agent's answer that echoes one) shown to a person: control characters are
 * written as escapes (`\x1b`), so an ESC sequence cannot clear or retitle the terminal of whoever reads a log
 * or runs `hookpilot jobs`, and a NUL or BEL cannot either.
 */

// C0 controls but tab (and line feed when kept), DEL, and the C1 controls (0x80-0x9f), which terminals also obey.
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g
const CONTROL_BUT_NEWLINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

/** Options of {@link printable}. */
export interface PrintableOptions {
  /** Keep line feeds as they are (multi-line output); by default they are escaped too. */
  readonly keepNewlines?: boolean | undefined
}

/**
 * `text` with every control character but tab written as `\xNN`.
 *
 * @example
 * ```ts
 * printable('title\u001b[2J') // 'title\\x1b[2J'
 * ```
 */
export function printable(text: string, options: PrintableOptions = {}): string {
  const pattern = options.keepNewlines ? CONTROL_BUT_NEWLINE : CONTROL
  return text.replace(pattern, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
}
