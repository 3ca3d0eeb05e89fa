/** A spinner on stderr for multi-page work; silent unless stderr is a terminal, so pipes and logs stay clean. */
import type { CliIO } from '../io.js'

/** A running progress line. */
export interface Progress {
  update(count: number): void
  stop(): void
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

/** Starts a spinner labelled `label` (e.g. `fetching markets`), showing the item count so far. */
export function progress(io: CliIO, label: string): Progress {
  if (io.stderr.isTTY !== true) return { update() {}, stop() {} }
  let frame = 0
  let count = 0
  const draw = (): void => {
    io.stderr.write(`\r${FRAMES[frame++ % FRAMES.length] ?? ''} ${label}… ${count}`)
  }
  const timer = setInterval(draw, 80)
  timer.unref()
  draw()
  return {
    update(n) {
      count = n
    },
    stop() {
      clearInterval(timer)
      io.stderr.write('\r\x1b[2K')
    },
  }
}

/** Collects up to `max` items of an async iterable with a spinner running. */
export async function collect<T>(io: CliIO, label: string, items: AsyncIterable<T>, max: number): Promise<T[]> {
  const spinner = progress(io, label)
  const out: T[] = []
  try {
    for await (const item of items) {
      out.push(item)
      spinner.update(out.length)
      if (out.length >= max) break
    }
  } finally {
    spinner.stop()
  }
  return out
}
