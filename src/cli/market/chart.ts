/** A price-history chart drawn with block characters, so `history` shows a shape and not only numbers. */

/** A point of the chart: unix seconds and a probability. */
export interface ChartPoint {
  readonly t: number
  readonly p: number
}

const BLOCKS = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█']

/** Draws `points` as a filled area chart `width` columns wide and `height` rows high, with axes and labels. */
export function chart(points: readonly ChartPoint[], width = 60, height = 10): string {
  if (points.length === 0) return '(no history)\n'
  const columns = resample(points, Math.min(width, points.length))
  const lo = Math.max(0, Math.min(...columns) - 0.01)
  const hi = Math.min(1, Math.max(...columns) + 0.01)
  const span = hi - lo || 1
  const units = columns.map((v) => Math.round(((v - lo) / span) * height * 8))
  const label = (v: number): string => `${(v * 100).toFixed(1)}%`.padStart(6)
  const lines: string[] = []
  for (let row = height - 1; row >= 0; row--) {
    const axis = row === height - 1 ? label(hi) : row === 0 ? label(lo) : row === Math.floor(height / 2) ? label(lo + span / 2) : ' '.repeat(6)
    const bar = units.map((u) => BLOCKS[Math.max(0, Math.min(8, u - row * 8))] ?? ' ').join('')
    lines.push(`${axis} ┤${bar}`)
  }
  const first = points[0]
  const last = points[points.length - 1]
  lines.push(`${' '.repeat(6)} └${'─'.repeat(columns.length)}`)
  if (first !== undefined && last !== undefined) {
    const from = day(first.t)
    const to = day(last.t)
    const gap = Math.max(1, columns.length - from.length - to.length)
    lines.push(`${' '.repeat(8)}${from}${' '.repeat(gap)}${to}`)
  }
  return lines.join('\n') + '\n'
}

/** Averages the points into `n` equal buckets, one per column. */
function resample(points: readonly ChartPoint[], n: number): number[] {
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const bucket = points.slice(Math.floor((i * points.length) / n), Math.floor(((i + 1) * points.length) / n))
    out.push(bucket.reduce((sum, pt) => sum + pt.p, 0) / Math.max(1, bucket.length))
  }
  return out
}

function day(t: number): string {
  return new Date(t * 1000).toISOString().slice(0, 16).replace('T', ' ')
}
