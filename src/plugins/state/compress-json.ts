/**
 * Payloads as the durable backends keep them: brotli at its fastest setting. Webhook payloads are JSON that
 * compresses about ten to one (the bench's 25,172-byte pull_request: 2,457 bytes, in about 45 µs), and storing
 * them as they are costs more than that in the write (SQLite pages, Redis' socket and append-only file) and
 * ten times the space.
 */
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib'

const FASTEST = { params: { [constants.BROTLI_PARAM_QUALITY]: 1, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } }

/** The compressed bytes of a JSON text. */
export function compressJson(json: string): Buffer {
  return brotliCompressSync(json, FASTEST)
}

/** The JSON text back. */
export function decompressJson(bytes: Uint8Array): string {
  return brotliDecompressSync(bytes).toString('utf8')
}
