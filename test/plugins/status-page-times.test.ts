/**
 * The status page's times carry their zone (issue 38, item 16): the page's own script formats them, so the
 * formatter is taken from the script the page serves and run here.
 */
import { describe, expect, it } from 'vitest'
import { STATUS_JS } from '../../src/plugins/status-page/assets.js'

describe('status page times', () => {
  it('are shown in UTC and say so', () => {
    const source = /const time = (\(ms\) => [^\n]*)\n/.exec(STATUS_JS)?.[1]
    expect(source).toBeDefined()
    const time = new Function(`return ${source ?? ''}`)() as (ms: number | null | undefined) => string
    expect(time(Date.UTC(2026, 10, 27, 20, 30, 5))).toBe('2026-11-27 20:30:05 UTC')
    expect(time(undefined)).toBe('')
  })
})
