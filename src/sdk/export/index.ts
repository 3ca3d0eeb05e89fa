/**
 * `hookpilot/sdk/export`: exports that work around the services' limits, resumable. A walk (history, trades, the
 * catalog) reads in steps the services accept; {@link runExport} writes its rows as JSON lines or CSV and keeps a
 * checkpoint beside the file, so a killed export resumes where it stopped and ends equal to an uninterrupted one.
 *
 * @example
 * ```ts
 * import { createMarketClient } from 'hookpilot/sdk'
 * import { historyExport, runExport } from 'hookpilot/sdk/export'
 * const pm = createMarketClient()
 * const walk = await historyExport(pm, 'will-1-fed-rate-cut-happen-in-2025', { since: new Date('2025-01-01'), fidelity: 60 })
 * const summary = await runExport(walk, { file: 'history.jsonl', format: 'jsonl' })
 * ```
 * @packageDocumentation
 */
export { runExport, checkpointOf } from './run.js'
export type { ExportSummary, ExportProgress, RunOptions } from './run.js'
export { EXPORT_FORMATS } from './format.js'
export type { ExportFormat } from './format.js'
export { historyExport, MAX_HISTORY_WINDOW_DAYS } from './history.js'
export type { HistoryExportOptions, HistoryState } from './history.js'
export { tradesExport } from './trades.js'
export type { TradesExportOptions, TradesState, TradesV1State, TradesApi } from './trades.js'
export { V2_TRADES_WINDOW_SECONDS } from './trades-v2.js'
export type { TradesV2State } from './trades-v2.js'
export { catalogExport } from './catalog.js'
export type { CatalogExportOptions, CatalogState } from './catalog.js'
export type { Walk, Step, Row, Gap, Unreached, WalkReport, Completeness } from './walk.js'
