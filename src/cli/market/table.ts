/** Plain-text tables and number formats for `hookpilot market`: small enough not to need a library. */

/** One column: its header, how to read a cell from a row, alignment and an optional width cap. */
export interface Column<T> {
  readonly header: string
  readonly cell: (row: T) => string
  readonly align?: 'left' | 'right'
  readonly max?: number
}

/** Renders rows as an aligned table with a header rule; long cells are cut with an ellipsis. */
export function table<T>(rows: readonly T[], columns: readonly Column<T>[]): string {
  if (rows.length === 0) return '(no results)\n'
  const cells = rows.map((row) => columns.map((c) => clip(c.cell(row), c.max)))
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => (r[i] ?? '').length)))
  const line = (values: readonly string[]): string =>
    values
      .map((v, i) => (columns[i]?.align === 'right' ? v.padStart(widths[i] ?? 0) : v.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd()
  const header = line(columns.map((c) => c.header))
  const rule = widths.map((w) => '─'.repeat(w)).join('  ')
  return [header, rule, ...cells.map(line)].join('\n') + '\n'
}

function clip(text: string, max: number | undefined): string {
  return max !== undefined && text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/** A probability as a percentage (`0.035` → `3.5%`); `-` when absent. */
export function pct(p: number | null | undefined): string {
  if (p === null || p === undefined || Number.isNaN(p)) return '-'
  return `${(p * 100).toFixed(p < 0.1 && p > 0 ? 1 : 0)}%`
}

/** An amount in dollars, compact (`$4.1M`); `-` when absent. */
export function usd(n: number | null | undefined): string {
  if (n === null || n === undefined || Number.isNaN(n)) return '-'
  const units: [number, string][] = [
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'k'],
  ]
  for (const [size, unit] of units) if (Math.abs(n) >= size) return `$${(n / size).toFixed(1)}${unit}`
  return `$${n.toFixed(0)}`
}

/** A share count with thousands separators. */
export function shares(n: number): string {
  return n.toLocaleString('en-US', { maximumFractionDigits: 2 })
}

/** A date as `YYYY-MM-DD HH:MM` UTC; `-` when absent. */
export function when(d: Date | number | null | undefined): string {
  if (d === null || d === undefined) return '-'
  const date = typeof d === 'number' ? new Date(d * 1000) : d
  return date.toISOString().slice(0, 16).replace('T', ' ')
}
