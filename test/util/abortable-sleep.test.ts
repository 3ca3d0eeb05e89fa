import { describe, expect, it } from 'vitest'
import { abortableSleep } from '../../src/util/abortable-sleep.js'

describe('abortableSleep', () => {
  it('waits its time, resolves at once for none, and stops with the reason when its signal aborts', async () => {
    const started = performance.now()
    await abortableSleep(30, undefined)
    expect(performance.now() - started).toBeGreaterThanOrEqual(25)
    await expect(abortableSleep(0, new AbortController().signal)).resolves.toBeUndefined()
    const stop = new AbortController()
    const waiting = abortableSleep(60_000, stop.signal)
    stop.abort(new Error('closing'))
    await expect(waiting).rejects.toThrow('closing')
    await expect(abortableSleep(10, stop.signal)).rejects.toThrow('closing')
  })
})
