/** readBounded: a stream read to its end, or cancelled at the first chunk refused (the rest never read). */
import { describe, expect, it } from 'vitest'
import { readBounded } from '../../src/util/read-bounded.js'

/** A stream of `n` chunks of `size` bytes that counts how many were pulled and whether it was cancelled. */
function counted(n: number, size: number) {
  const seen = { pulled: 0, cancelled: false }
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (seen.pulled === n) return controller.close()
      seen.pulled++
      controller.enqueue(new Uint8Array(size).fill(97))
    },
    cancel() {
      seen.cancelled = true
    },
  }, { highWaterMark: 0 })
  return { stream, seen }
}

describe('readBounded', () => {
  it('reads the whole stream when nothing is refused, and an absent body as empty', async () => {
    const { stream } = counted(4, 10)
    const read = await readBounded(stream, () => undefined)
    expect(read.ok && read.bytes.byteLength).toBe(40)
    expect(await readBounded(null, () => 'never')).toEqual({ ok: true, bytes: new Uint8Array() })
  })

  it('stops at the first refusal, with its reason, and cancels the rest unread', async () => {
    const { stream, seen } = counted(1_000, 1_024)
    const read = await readBounded(stream, (size) => (size > 4_096 ? 'too-large' : undefined))
    expect(read).toEqual({ ok: false, refused: 'too-large' })
    expect(seen.pulled).toBeLessThan(10)
    expect(seen.cancelled).toBe(true)
  })
})
