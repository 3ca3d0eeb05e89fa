/** One run at a time; calls during a run make exactly one more run after it; stopped ends the repeats. */
import { describe, expect, it } from 'vitest'
import { coalesced } from '../../src/util/coalesced.js'

/** A run that waits until `finish()` is called, counting its starts. */
function gatedRun() {
  const gates: Array<() => void> = []
  let starts = 0
  const run = () => {
    starts++
    return new Promise<void>((resolve) => gates.push(resolve))
  }
  const started = async (n: number) => {
    while (starts < n) await new Promise((resolve) => setImmediate(resolve))
  }
  return { run, started, finish: () => gates.shift()?.(), starts: () => starts }
}

describe('coalesced', () => {
  it('runs once at a time, and calls during a run give exactly one more run, which they all resolve with', async () => {
    const gated = gatedRun()
    const call = coalesced(gated.run, () => false)
    const first = call()
    await gated.started(1)
    const during = [call(), call(), call()]
    expect(gated.starts()).toBe(1) // none started beside the running one
    gated.finish()
    await gated.started(2) // the three calls asked for one more
    gated.finish()
    await Promise.all([first, ...during])
    expect(gated.starts()).toBe(2)
    const later = call() // after the runs ended: a new run
    await gated.started(3)
    gated.finish()
    await later
    expect(gated.starts()).toBe(3)
  })

  it('stopped ends the repeats; settled() waits for the run under way and starts none', async () => {
    const gated = gatedRun()
    let stop = false
    const call = coalesced(gated.run, () => stop)
    const first = call()
    await gated.started(1)
    void call() // asks for one more
    stop = true
    let settled = false
    const waiting = call.settled().then(() => (settled = true))
    await new Promise((resolve) => setImmediate(resolve))
    expect(settled).toBe(false)
    gated.finish()
    await Promise.all([first, waiting])
    expect(gated.starts()).toBe(1)
    await call.settled()
    expect(gated.starts()).toBe(1)
  })
})
