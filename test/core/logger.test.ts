import { describe, expect, it } from 'vitest'
import { createLogger } from '../../src/core/log/logger.js'

function capture(level?: 'debug' | 'info' | 'warn' | 'error', format?: 'text' | 'json') {
  const lines: string[] = []
  const log = createLogger({ level, format, write: (l) => lines.push(l), now: () => new Date(Date.UTC(2026, 10, 22, 7, 0, 0)) })
  return { log, lines }
}

// What a terminal obeys: C0 controls (ESC, BEL, NUL, CR...), DEL, C1 controls (0x9b is CSI), the Unicode
// line and paragraph separators, and the bidirectional controls (U+202E shows what follows reversed).
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/
const HOSTILE = 'PR \u001b[2J\u001b]0;pwned\u0007 title\u0000 del\u007f csi\u009b31m ls\u2028end rlo\u202etxt.exe iso\u2066x'

describe('createLogger', () => {
  it('writes one line: time, level, message, then key=value fields', () => {
    const { log, lines } = capture()
    log.info('accepted', { route: 'pr', delivery: 'abc-1', attempt: 2, ok: true, skipped: undefined })
    expect(lines).toEqual(['2026-11-22T07:00:00.000Z INFO  accepted route=pr delivery=abc-1 attempt=2 ok=true'])
  })

  it('quotes values with spaces or quotes; a multi-line value goes below its line', () => {
    const { log, lines } = capture()
    log.info('agent answer', { answer: 'Looks good.\n\n- fix "x"', title: 'say "hi"', empty: '' })
    expect(lines).toHaveLength(1)
    expect(lines[0]).toBe('2026-11-22T07:00:00.000Z INFO  agent answer answer=<3 lines below> title="say \\"hi\\"" empty=""\n    | Looks good.\n    | \n    | - fix "x"')
  })

  it('keeps line breaks out of the message too', () => {
    const { log, lines } = capture()
    log.warn('two\nlines\r\nhere')
    expect(lines[0]).toBe('2026-11-22T07:00:00.000Z WARN  two lines here')
  })

  it('drops lines below the level', () => {
    const { log, lines } = capture('warn')
    log.debug('d')
    log.info('i')
    log.warn('w')
    log.error('e')
    expect(lines.map((l) => l.split(' ')[1])).toEqual(['WARN', 'ERROR'])
    const debug = capture('debug')
    debug.log.debug('d')
    expect(debug.lines).toHaveLength(1)
  })
})

describe('createLogger: text from payloads', () => {
  it('the text format escapes every control character, in the message and in fields, with or without spaces', () => {
    const { log, lines } = capture()
    log.info(`answer: ${HOSTILE}`, { title: HOSTILE, bare: '\u001b[2J', c1: '\u009b2J' })
    expect(lines).toHaveLength(1)
    expect(lines[0]).not.toMatch(RAW_CONTROL)
    expect(lines[0]).toContain('answer: PR \\x1b[2J\\x1b]0;pwned\\x07 title\\x00 del\\x7f csi\\x9b31m ls end rlo\\u202etxt.exe iso\\u2066x')
    expect(lines[0]).toContain(' bare="\\u001b[2J" c1="\\u009b2J"')
    // A quoted value is a JSON string literal: it reads back as what was logged.
    const title = /title=("(?:[^"\\]|\\.)*")/.exec(lines[0] ?? '')?.[1]
    expect(JSON.parse(title ?? '""')).toBe(HOSTILE)
  })

  it('the JSON format escapes them too: no raw control character on the line', () => {
    const { log, lines } = capture('info', 'json')
    log.warn(HOSTILE, { title: HOSTILE })
    expect(lines).toHaveLength(1)
    expect(lines[0]).not.toMatch(RAW_CONTROL)
    const parsed = JSON.parse(lines[0] ?? '') as { msg: string; title: string }
    // C0 characters are JSON escapes (they parse back); the ones JSON leaves raw are written as text escapes.
    expect(parsed.title).toBe('PR \u001b[2J\u001b]0;pwned\u0007 title\u0000 del\\x7f csi\\x9b31m ls\\u2028end rlo\\u202etxt.exe iso\\u2066x')
    expect(parsed.msg).toBe(parsed.title)
  })
})

describe('createLogger: a multi-line answer', () => {
  it('the text format writes it below its line, each line behind "    | " and escaped, so none passes for a log line', () => {
    const { log, lines } = capture()
    log.info('agent answer', { route: 'pr', answer: '## Review\n\nLooks fine.\r\n2025-01-01T00:00:00.000Z ERROR forged \u001b[2J', event: 'pull_request' })
    expect(lines).toHaveLength(1)
    const [head, ...block] = (lines[0] ?? '').split('\n')
    expect(head).toBe('2026-11-22T07:00:00.000Z INFO  agent answer route=pr answer=<4 lines below> event=pull_request')
    expect(block).toEqual(['    | ## Review', '    | ', '    | Looks fine.', '    | 2025-01-01T00:00:00.000Z ERROR forged \\x1b[2J'])
    for (const line of [head, ...block]) expect(line).not.toMatch(RAW_CONTROL)
  })

  it('JSON lines keep it one escaped string, and a value of one line stays inline', () => {
    const json = capture(undefined, 'json')
    json.log.info('agent answer', { answer: 'a\nb' })
    expect(JSON.parse(json.lines[0] ?? '{}')).toMatchObject({ answer: 'a\nb' })
    const text = capture()
    text.log.info('agent answer', { answer: 'one line' })
    expect(text.lines).toEqual(['2026-11-22T07:00:00.000Z INFO  agent answer answer="one line"'])
  })
})

describe('createLogger: JSON lines', () => {
  it('writes one object per line: time, level, msg, then the fields as keys', () => {
    const { log, lines } = capture('info', 'json')
    log.info('accepted', { route: 'pr', delivery: 'abc-1', attempt: 2, ok: true, skipped: undefined })
    log.error('delivery failed', { reason: 'line one\nline two "quoted"' })
    expect(lines).toHaveLength(2)
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    expect(parsed[0]).toEqual({ time: '2026-11-22T07:00:00.000Z', level: 'info', msg: 'accepted', route: 'pr', delivery: 'abc-1', attempt: 2, ok: true })
    expect(parsed[1]).toEqual({ time: '2026-11-22T07:00:00.000Z', level: 'error', msg: 'delivery failed', reason: 'line one\nline two "quoted"' })
  })

  it('drops lines below the level', () => {
    const { log, lines } = capture('warn', 'json')
    log.debug('d')
    log.info('i')
    log.warn('w')
    log.error('e')
    expect(lines.map((l) => (JSON.parse(l) as { level: string }).level)).toEqual(['warn', 'error'])
  })
})

describe('printable (what hookpilot jobs shows of an answer)', () => {
  it('escapes control and bidirectional characters, keeps tabs, and line feeds when asked', async () => {
    const { printable } = await import('../../src/core/log/printable.js')
    expect(printable('a\tb\u001b[2J\u202etxt.exe\nnext')).toBe('a\tb\\x1b[2J\\u202etxt.exe\\x0anext')
    expect(printable('one\ntwo\u2066', { keepNewlines: true })).toBe('one\ntwo\\u2066')
    // Line and paragraph separators: terminals and editors break lines at them.
    expect(printable('a\u2028b\u2029c', { keepNewlines: true })).toBe('a\\u2028b\\u2029c')
  })

  it('printableJson (jobs list --json, jobs show --json): the same JSON to a parser, nothing raw a terminal obeys', async () => {
    const { printableJson } = await import('../../src/core/log/printable.js')
    const value = { title: 'fix \u202etxt.exe', body: 'one\u2028two\u0085\u009b2J\u007f', ok: 'plain é 😀' }
    const text = printableJson(value, 2)
    expect(text).not.toMatch(/[\u007f-\u009f\u202a-\u202e\u2028\u2029]/)
    expect(text).toContain('\\u202e')
    expect(JSON.parse(text)).toEqual(value)
  })
})
