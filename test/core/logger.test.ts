import { describe, expect, it } from 'vitest'
import { createLogger } from '../../src/core/logger.js'

function capture(level?: 'debug' | 'info' | 'warn' | 'error') {
  const lines: string[] = []
  const log = createLogger({ level, write: (l) => lines.push(l), now: () => new Date(Date.UTC(2026, 10, 22, 7, 0, 0)) })
  return { log, lines }
}

describe('createLogger', () => {
  it('writes one line: time, level, message, then key=value fields', () => {
    const { log, lines } = capture()
    log.info('accepted', { route: 'pr', delivery: 'abc-1', attempt: 2, ok: true, skipped: undefined })
    expect(lines).toEqual(['2026-11-22T07:00:00.000Z INFO  accepted route=pr delivery=abc-1 attempt=2 ok=true'])
  })

  it('quotes values with spaces, quotes or line breaks, so a multi-line answer stays one line', () => {
    const { log, lines } = capture()
    log.info('agent answer', { answer: 'Looks good.\n\n- fix "x"', empty: '' })
    expect(lines).toHaveLength(1)
    expect(lines[0]).toBe('2026-11-22T07:00:00.000Z INFO  agent answer answer="Looks good.\\n\\n- fix \\"x\\"" empty=""')
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
