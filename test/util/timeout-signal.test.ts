import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { describe, expect, it } from 'vitest'
import { timeoutSignal } from '../../src/util/timeout-signal.js'

// A real garbage collection on demand (what --expose-gc gives), for the case Node gets wrong.
setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

/** Whether `signal`, held by nothing but its abort listener, aborts within `waitMs` while garbage is collected. */
function firesThroughCollections(make: () => AbortSignal, waitMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    make().addEventListener('abort', () => resolve(true), { once: true })
    for (let i = 0; i < 5; i++) setTimeout(gc, 20 * i)
    setTimeout(() => resolve(false), waitMs)
  })
}

describe('timeoutSignal', () => {
  it('aborts with a TimeoutError after its time, and follows its parent before that', async () => {
    const timed = timeoutSignal(new AbortController().signal, 20)
    const reason = await new Promise((resolve) => timed.addEventListener('abort', () => resolve(timed.reason), { once: true }))
    expect(reason).toMatchObject({ name: 'TimeoutError' })
    const parent = new AbortController()
    const child = timeoutSignal(parent.signal, 60_000)
    parent.abort(new Error('closing'))
    expect(child.aborted).toBe(true)
    expect(child.reason).toEqual(new Error('closing'))
    const already = new AbortController()
    already.abort('gone')
    expect(timeoutSignal(already.signal, 60_000).reason).toBe('gone')
  })

  it('fires through garbage collections when nothing but its listener holds it, where AbortSignal.any over AbortSignal.timeout does not', async () => {
    const parent = new AbortController().signal
    expect(await firesThroughCollections(() => timeoutSignal(parent, 200), 2_000)).toBe(true)
    // Node's own composite loses its timeout to the collector (nodejs/node#57736): why this helper exists. If this
    // starts failing, Node fixed it, and the helper may give way to AbortSignal.any.
    expect(await firesThroughCollections(() => AbortSignal.any([parent, AbortSignal.timeout(200)]), 1_000)).toBe(false)
  })
})
