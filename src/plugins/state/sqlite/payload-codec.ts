/**
 * Payloads as the file keeps them: compressed (shared/compress-json.ts). Written as they are, a payload cost
 * more than its compression in the commit: seven 4 KB pages through the WAL, then again at the checkpoint; the
 * file also grows ten times slower (done jobs are kept a day). Payloads of a file written before (schema
 * version 1) stay as JSON text.
 */
import type { JsonObject } from '../../../core/types.js'
import { compressJson, decompressJson } from '../compress-json.js'

/** A row of the `payloads` table: one of the two is set. */
export interface PayloadRow {
  readonly json: string | null
  readonly brotli: Buffer | null
}

/** The bytes to store for a payload's JSON text. */
export function encodePayload(json: string): Buffer {
  return compressJson(json)
}

/** The payload a row holds. */
export function decodePayload(row: PayloadRow): JsonObject {
  const json = row.brotli === null ? (row.json ?? '{}') : decompressJson(row.brotli)
  return JSON.parse(json) as JsonObject
}
