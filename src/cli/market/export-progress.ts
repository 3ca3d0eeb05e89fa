/** The progress of an export: a bar redrawn in place on a terminal, one plain line a step otherwise (logs, pipes). */
import type { ExportProgress } from '../../sdk/export/index.js'
import type { CliIO } from '../io.js'

/** A running progress display. */
export interface ExportProgressDisplay {
  update(progress: ExportProgress): void
  stop(): void
}

const WIDTH = 30

/** Shows the progress of an export of `kind` on stderr. */
export function exportProgress(io: CliIO, kind: string): ExportProgressDisplay {
  const tty = io.stderr.isTTY === true
  let drawn = false
  return {
    update({ rows, done, total }) {
      const steps = total === undefined ? `${done} steps` : `${done}/${total} steps`
      const text = `export ${kind}: ${steps}, ${rows.toLocaleString('en-US')} rows`
      if (!tty) return void io.stderr.write(`${text}\n`)
      const filled = total === undefined || total === 0 ? 0 : Math.round((WIDTH * Math.min(done, total)) / total)
      io.stderr.write(`\r[${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${text}`)
      drawn = true
    },
    stop() {
      if (drawn) io.stderr.write('\r\x1b[2K')
    },
  }
}
