/**
 * How a log line shows text it did not write itself (a PR title echoed in an agent's answer, a program's
 * stderr): control characters never reach the reader raw, in either format, so an ESC sequence cannot clear
 * or retitle the terminal of whoever runs `tail -f`, and a NUL or BEL cannot either.
 */

// C0 controls, DEL, the C1 controls (terminals obey 0x9b as CSI), the Unicode line and paragraph separators,
// which some viewers break lines at, and the bidirectional controls, which make a viewer show text in another
// order than it was written (U+202E turns "txt.exe" around: "Trojan Source").
/** The bidirectional controls, as a regular expression class's contents. */
export const BIDI = '\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069'
const UNSAFE = new RegExp(`[\u0000-\u001f\u007f-\u009f\u2028\u2029${BIDI}]`)
const UNSAFE_ALL = new RegExp(UNSAFE.source, 'g')
// What JSON.stringify leaves raw: it escapes C0 itself.
const UNSAFE_AFTER_JSON = new RegExp(`[\u007f-\u009f\u2028\u2029${BIDI}]`, 'g')
const ANY_AFTER_JSON = new RegExp(UNSAFE_AFTER_JSON.source)
// A text-format value that needs no quotes: no space, quote, equals sign or character escaped above.
const PLAIN = new RegExp(`^[^\\s"=\u0000-\u001f\u007f-\u009f\u2028\u2029${BIDI}]+$`)

const hex = (c: string, width: number): string => c.charCodeAt(0).toString(16).padStart(width, '0')
/** `\xNN` for a character of Latin-1, `\uNNNN` past it. */
const escaped = (c: string): string => (c.charCodeAt(0) > 0xff ? `\\u${hex(c, 4)}` : `\\x${hex(c, 2)}`)

/** A message for the text format: line breaks become spaces, other control characters `\xNN` (`\uNNNN`). */
export function textMessage(text: string): string {
  if (!UNSAFE.test(text)) return text
  return text.replace(/[\r\n\u2028\u2029]+/g, ' ').replace(UNSAFE_ALL, escaped)
}

/** A field value for the text format: as it is when plain, else a JSON string literal with every control escaped. */
export function textValue(text: string): string {
  if (PLAIN.test(text)) return text
  return escapeAfterJson(JSON.stringify(text))
}

/** At most this many lines of a multi-line value are shown as a block; the rest are counted. */
const BLOCK_LINES = 200

/**
 * A multi-line field value (an agent's answer) for the text format: `key=<N lines>` on the line, then the value's
 * lines below it, each behind `    | ` and with every control escaped, so it reads as written and no line of it can
 * pass for a log line of its own. Undefined for a value of one line, which {@link textValue} writes inline.
 */
export function textBlock(key: string, text: string): { inline: string; block: string } | undefined {
  if (!/[\r\n]/.test(text)) return undefined
  const lines = text.replace(/\r\n?/g, '\n').split('\n')
  const shown = lines.slice(0, BLOCK_LINES).map((line) => `\n    | ${textMessage(line)}`)
  const cut = lines.length > BLOCK_LINES ? `\n    | … (${lines.length - BLOCK_LINES} more lines)` : ''
  return { inline: ` ${key}=<${lines.length} lines below>`, block: shown.join('') + cut }
}

/** JSON text with what a JSON encoder leaves raw but a terminal obeys written as `\uNNNN`: the same JSON to a parser. */
export function escapeAfterJson(json: string): string {
  return json.replace(UNSAFE_AFTER_JSON, (c) => `\\u${hex(c, 4)}`)
}

/**
 * A string for the JSON format. JSON escapes C0 characters itself (`\u001b`); the rest (DEL, C1, U+2028/9,
 * the bidirectional controls) are written as the text `\xNN` / `\u2028`, as the text format does, since a
 * JSON encoder leaves them raw.
 */
export function jsonText(text: string): string {
  if (!ANY_AFTER_JSON.test(text)) return text
  return text.replace(UNSAFE_AFTER_JSON, escaped)
}
