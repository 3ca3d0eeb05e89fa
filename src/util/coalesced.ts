/**
 * `run` made safe to call whenever something may have changed: one run at a time, and a call during a run asks
 * for one more run after it, so the last change is never missed (however many calls came meanwhile). The
 * returned function resolves when the run it started or joined ends; `stopped` ends the repeats, and `settled()`
 * resolves once the run under way (if any) ended, starting none.
 */
export function coalesced(run: () => Promise<void>, stopped: () => boolean): (() => Promise<void>) & { settled(): Promise<void> } {
  let busy: Promise<void> | undefined
  let again = false
  const call = () => {
    if (busy) {
      again = true
      return busy
    }
    busy = (async () => {
      do {
        again = false
        await run()
      } while (again && !stopped())
    })().finally(() => {
      busy = undefined
    })
    return busy
  }
  return Object.assign(call, { settled: async () => await busy })
}
