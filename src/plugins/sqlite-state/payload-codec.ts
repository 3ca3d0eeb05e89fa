/**
 * Payloads as the file keeps them: brotli at its fastest setting. Webhook payloads are JSON that compresses
 * about ten to one (the bench's 25,172-byte pull_request: 2,457 bytes, in about 45 µs), and writing them as
 * they are cost more than that in the commit: seven 4 KB pages through the WAL, then again at the checkpoint.
 * The file also grows ten times slower (done jobs are kept a day). Payloads of a file written before (schema
 * version 1) stay as JSON text.
 */
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib'
import type { JsonObject } from '../../core/types.js'

const FASTEST = { params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } }

/** A row of the `payloads` table: one of the two is set. */
export interface PayloadRow {
  readonly json: string | null
  readonly brotli: Buffer | null
}

/** The bytes to store for a payload's JSON text. */
export function encodePayload(json: string): Buffer {
  return brotliCompressSync(json, FASTEST)
}

/** The payload a row holds. */
export function decodePayload(row: PayloadRow): JsonObject {
  const json = row.brotli === null ? (row.json ?? '{}') : brotliDecompressSync(row.brotli).toString('utf8')
  return JSON.parse(json) as JsonObject
}
