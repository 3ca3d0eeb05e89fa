/**
 * What an export is, whatever it reads: a walk in steps over a JSON state. Each step returns the rows it found and
 * the state after it, so the runner can write the rows, then save the state beside them; a killed export resumes
 * from the last saved state and writes exactly what an uninterrupted one would.
 */

/** One output row: flat, numbers as numbers, ids as strings. */
export type Row = Readonly<Record<string, string | number | boolean | null>>

/** A stretch of time where a series has no points although the points around it are further apart than expected. */
export interface Gap {
  /** The series (an outcome's token id). */
  readonly series: string
  /** Unix seconds of the last point before the gap and the first after it. */
  readonly from: number
  readonly to: number
}

/** Rows an export could not reach, and why. */
export interface Unreached {
  /** Which part of the walk (`side=BUY`, `side=SELL user=0x…`). */
  readonly part: string
  /** Rows it got before it had to stop. */
  readonly reached: number
  /** Trades older than this (unix s) were left out: the service's offset cap. */
  readonly olderThan: number | null
  readonly reason: string
}

/** How complete an export is: the rows against what the service says it has, and every hole named. */
export interface Completeness {
  /** What the rows were read from (`Data API v2 /v2/trades`, `Data API v1 /trades`). */
  readonly source: string
  /** Why this source and not another (v2 answered 404, `--api v1` was asked), when it is not the default. */
  readonly fallback: string | null
  /** The rows the service says there are, where it reports a total; `null` where it gives none. */
  readonly reported: number | null
  /** True when nothing is known to be missing: the walk read to the service's last page and no hole is named. */
  readonly complete: boolean
  /** How the walk ended (`read to the last page`, `reached --since`). */
  readonly ended: string
  /** Each stretch or part of the data the export does not hold, in words. */
  readonly holes: readonly string[]
}

/** What a walk says about itself in the summary; kept in its state so a resumed export reports the whole run. */
export interface WalkReport {
  readonly gaps: readonly Gap[]
  /** Gaps found, when more than `gaps` lists. */
  readonly gapCount: number
  readonly unreached: readonly Unreached[]
  /** The completeness line's facts, for the walks that can state them (trades). */
  readonly completeness?: Completeness
}

/** The result of one step. */
export interface Step<S> {
  readonly rows: readonly Row[]
  /** The state after this step (the summary is made from the last one). */
  readonly state: S
  /** True when this was the last step. */
  readonly done: boolean
}

/** A resumable walk; its state must survive `JSON.stringify`/`JSON.parse` unchanged. */
export interface Walk<S> {
  /** What is exported, for file names and for matching a checkpoint to its export (`history`, `trades`, ...). */
  readonly kind: string
  /** The export's parameters: a checkpoint resumes only an export with equal ones. */
  readonly job: Readonly<Record<string, string | number | boolean | null>>
  /** The columns of every row, in order (the CSV header). */
  readonly columns: readonly string[]
  /** The column holding a row's time in unix seconds, for the summary's time span. */
  readonly timeColumn: string | undefined
  /** The state before the first step. */
  start(): Promise<S> | S
  step(state: S, signal: AbortSignal | undefined): Promise<Step<S>>
  /** Steps done and in all (`total` undefined when unknown), for the progress display. */
  progress(state: S): { readonly done: number; readonly total: number | undefined }
  report(state: S): WalkReport
}
