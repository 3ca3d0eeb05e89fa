/**
 * Cutting a long answer into messages a chat platform accepts. Cuts fall on line boundaries where possible, so
 * a paragraph, a list item or a line of a code block is not broken in the middle.
 */

/**
 * Splits `text` into parts of at most `limit` UTF-16 code units (how Telegram, Discord and Twilio count).
 * Parts end at a line break when one fits; a single line longer than `limit` is cut at its last space, else
 * hard, never inside a surrogate pair. Joining the parts gives `text` back.
 *
 * @example
 * ```ts
 * splitMessage('first line\nsecond line', 12)   // ['first line\n', 'second line']
 * ```
 */
export function splitMessage(text: string, limit: number): string[] {
  if (!Number.isInteger(limit) || limit < 2) throw new RangeError(`limit must be an integer of at least 2, got ${limit}`)
  const parts: string[] = []
  let rest = text
  while (rest.length > limit) {
    const cut = cutPoint(rest, limit)
    parts.push(rest.slice(0, cut))
    rest = rest.slice(cut)
  }
  parts.push(rest)
  return parts
}

/** Where to end the next part of `text` (longer than `limit`): after a line break, else after a space, else hard. */
function cutPoint(text: string, limit: number): number {
  const window = text.slice(0, limit)
  const newline = window.lastIndexOf('\n')
  // Only a break with text before it: a part of bare line breaks is an empty message, which platforms refuse.
  if (newline >= 0 && window.slice(0, newline).trim() !== '') return newline + 1
  const space = window.lastIndexOf(' ')
  // A space near the start would leave a tiny part: cutting hard reads better than a one-word message.
  if (space >= limit / 2) return space + 1
  return isHighSurrogate(text.charCodeAt(limit - 1)) ? limit - 1 : limit
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff
}
