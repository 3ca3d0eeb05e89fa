/**
 * The pieces the chat targets share: splitting on line boundaries, redaction, and the ledger of posted parts
 * (Retry-After is read by the shared reader, tested in test/util/retry-after.test.ts).
 */
import { describe, expect, it } from 'vitest'
import { redact, safeCause } from '../../src/plugins/shared/redact.js'
import { splitMessage } from '../../src/plugins/targets/chat/split-message.js'

describe('splitMessage', () => {
  it('keeps a text within the limit whole, even an empty one', () => {
    expect(splitMessage('short\ntext', 20)).toEqual(['short\ntext'])
    expect(splitMessage('', 20)).toEqual([''])
  })

  it('cuts after the last line break that fits', () => {
    expect(splitMessage('aaaa\nbbbb\ncccc', 10)).toEqual(['aaaa\nbbbb\n', 'cccc'])
  })

  it('cuts a line longer than the limit at its last space, else hard', () => {
    expect(splitMessage('one two three four', 10)).toEqual(['one two ', 'three four'])
    expect(splitMessage('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)])
  })

  it('never makes a part of bare line breaks, which platforms refuse as empty', () => {
    const parts = splitMessage(`\n\n${'y'.repeat(15)}`, 10)
    for (const part of parts) expect(part.trim()).not.toBe('')
    expect(parts.join('')).toBe(`\n\n${'y'.repeat(15)}`)
  })

  it('never cuts a surrogate pair in two', () => {
    const text = `a${'😀'.repeat(20)}`
    const parts = splitMessage(text, 10)
    expect(parts.join('')).toBe(text)
    for (const part of parts) {
      expect(part.length).toBeLessThanOrEqual(10)
      expect(part).not.toMatch(/^[\uDC00-\uDFFF]|[\uD800-\uDBFF]$/)
    }
  })

  it('refuses a limit it cannot honour', () => {
    expect(() => splitMessage('abc', 1)).toThrow(RangeError)
  })
})

describe('redact', () => {
  it('removes known secrets, also URL-encoded, and token-shaped strings', () => {
    const known = 'my:secret/value'
    const text = `a ${known} b ${encodeURIComponent(known)} ghp_abcdefghijklmnopqrstu xoxb-1234-abcdefgh Bearer abcdefghijklmnop 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw`
    expect(redact(text, [known])).toBe('a [redacted] b [redacted] [redacted] [redacted] Bearer [redacted] [redacted]')
  })

  it('keeps a cause chain\'s names and messages, without the secrets or anything else', () => {
    const inner = Object.assign(new Error('connect ECONNREFUSED'), { url: 'https://x/botSECRET-TOKEN/send' })
    const outer = new TypeError('fetch https://x/botSECRET-TOKEN/send failed', { cause: inner })
    const safe = safeCause(outer, ['SECRET-TOKEN'])
    expect([safe.name, safe.message, (safe.cause as Error).message]).toEqual(['TypeError', 'fetch https://x/bot[redacted]/send failed', 'connect ECONNREFUSED'])
    expect(JSON.stringify(safe.cause)).not.toContain('SECRET')
  })
})
