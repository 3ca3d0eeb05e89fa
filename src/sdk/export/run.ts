/**
 * Runs a {@link Walk} into a file, resumably. After each step the rows are appended and then the checkpoint (the
 * walk's state, the rows and bytes written so far) is replaced atomically beside the file. A resumed export cuts the
 * file back to the checkpoint's length (dropping rows of a step that was cut short) and goes on from its state, so
 * the result equals an uninterrupted run's: no duplicate, no hole. The checkpoint is removed once the walk is done.
 */
import { open, readFile, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises'
import { MarketUsageError } from '../errors.js'
import { encode, header, type ExportFormat } from './format.js'
import type { Walk, WalkReport } from './walk.js'

/** What an export did. */
export interface ExportSummary extends WalkReport {
  readonly file: string
  readonly format: ExportFormat
  readonly rows: number
  /** Earliest and latest row time (unix s), when the rows have one. */
  readonly from: number | null
  readonly to: number | null
  /** True when it went on from a checkpoint. */
  readonly resumed: boolean
}

/** Progress after a step. */
export interface ExportProgress {
  readonly rows: number
  readonly done: number
  readonly total: number | undefined
}

/** Options of {@link runExport}. */
export interface RunOptions {
  /** The output file; the checkpoint is `<file>.checkpoint.json`. */
  readonly file: string
  readonly format: ExportFormat
  readonly signal?: AbortSignal | undefined
  /** Called after every step (and once at the start). */
  readonly onProgress?: ((progress: ExportProgress) => void) | undefined
}

interface Checkpoint<S> {
  readonly version: 1
  readonly kind: string
  readonly job: Walk<S>['job']
  readonly format: ExportFormat
  readonly state: S
  readonly bytes: number
  readonly rows: number
  readonly from: number | null
  readonly to: number | null
}

/** The checkpoint file of an output file. */
export const checkpointOf = (file: string): string => `${file}.checkpoint.json`

/** Runs `walk` into `options.file`, resuming from a checkpoint of the same export if one is there. */
export async function runExport<S>(walk: Walk<S>, options: RunOptions): Promise<ExportSummary> {
  const { file, format } = options
  const saved = await readCheckpoint<S>(file)
  if (saved !== undefined && !sameJob(saved, walk, format)) {
    throw new MarketUsageError(
      `${checkpointOf(file)} belongs to another export (${saved.kind} ${JSON.stringify(saved.job)}, ${saved.format}): ` +
        'remove it to start over, or export into another directory',
    )
  }
  // A checkpoint's temporary copy is left only by a kill between its write and its rename: never read, removed.
  await rm(`${checkpointOf(file)}.tmp`, { force: true })
  let cp: Checkpoint<S>
  let handle: FileHandle
  if (saved === undefined) {
    handle = await open(file, 'w')
    const head = header(format, walk.columns)
    await handle.write(head)
    cp = { version: 1, kind: walk.kind, job: walk.job, format, state: await walk.start(), bytes: Buffer.byteLength(head), rows: 0, from: null, to: null }
    await writeCheckpoint(file, cp)
  } else {
    const size = await stat(file).then((s) => s.size, () => -1)
    if (size < saved.bytes) throw new MarketUsageError(`${file} is shorter than its checkpoint says (${size} < ${saved.bytes} bytes): remove both to start over`)
    handle = await open(file, 'r+')
    // Rows of the step that was cut short are past the checkpoint's length: drop them.
    await handle.truncate(saved.bytes)
    cp = saved
  }
  try {
    let done = false
    options.onProgress?.({ rows: cp.rows, ...walk.progress(cp.state) })
    while (!done) {
      options.signal?.throwIfAborted()
      const step = await walk.step(cp.state, options.signal)
      const text = encode(format, walk.columns, step.rows)
      await handle.write(text, cp.bytes)
      let { from, to } = cp
      if (walk.timeColumn !== undefined) {
        for (const row of step.rows) {
          const t = row[walk.timeColumn]
          if (typeof t !== 'number') continue
          from = from === null || t < from ? t : from
          to = to === null || t > to ? t : to
        }
      }
      cp = { ...cp, state: step.state, bytes: cp.bytes + Buffer.byteLength(text), rows: cp.rows + step.rows.length, from, to }
      done = step.done
      // The last step needs none: the checkpoint goes once the file is complete.
      if (!done) await writeCheckpoint(file, cp)
      options.onProgress?.({ rows: cp.rows, ...walk.progress(step.state) })
    }
  } finally {
    await handle.close()
  }
  await rm(checkpointOf(file), { force: true })
  return { file, format, rows: cp.rows, from: cp.from, to: cp.to, resumed: saved !== undefined, ...walk.report(cp.state) }
}

function sameJob<S>(saved: Checkpoint<S>, walk: Walk<S>, format: ExportFormat): boolean {
  return saved.kind === walk.kind && saved.format === format && JSON.stringify(saved.job) === JSON.stringify(walk.job)
}

async function readCheckpoint<S>(file: string): Promise<Checkpoint<S> | undefined> {
  let text: string
  try {
    text = await readFile(checkpointOf(file), 'utf8')
  } catch {
    return undefined
  }
  const parsed = JSON.parse(text) as Checkpoint<S>
  if (parsed.version !== 1) throw new MarketUsageError(`${checkpointOf(file)} is not a checkpoint this version reads`)
  return parsed
}

// Written beside, then renamed over the old one: a kill at any moment leaves the old checkpoint or the new one whole.
async function writeCheckpoint<S>(file: string, cp: Checkpoint<S>): Promise<void> {
  const path = checkpointOf(file)
  await writeFile(`${path}.tmp`, JSON.stringify(cp))
  await rename(`${path}.tmp`, path)
}
