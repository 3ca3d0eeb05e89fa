/**
 * Step 4 of the request table: the body must be a JSON object. Bytes are decoded strictly (invalid UTF-8 is
 * refused, not replaced) and GitHub's form encoding (`payload=<json>`) is unwrapped.
 */
import { isUtf8 } from 'node:buffer'
import { isRecord } from '../config/env.js'
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js'
import type { JsonObject } from '../types.js'

/** A body that is a JSON object: the object, and the JSON text it was parsed from (stored as it is). */
export interface ParsedPayload {
  readonly payload: JsonObject
  readonly json: string
}

/** The payload as a JSON object, or undefined when the body is anything else (or nests over {@link MAX_JSON_DEPTH} deep). */
export function parsePayload(body: Uint8Array, contentType: string | undefined): ParsedPayload | undefined {
  // isUtf8 is a fast validity scan; decoding after it cannot replace a byte.
  if (!isUtf8(body)) return undefined
  let text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1) // a byte-order mark is not JSON, but harmless
  if (contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    const payload = new URLSearchParams(text).get('payload')
    if (payload === null) return undefined
    text = payload
  }
  try {
    const value: unknown = JSON.parse(text)
    if (!isRecord(value) || nestsDeeperThan(value as JsonObject, MAX_JSON_DEPTH)) return undefined
    return { payload: value as JsonObject, json: text }
  } catch {
    return undefined
  }
}
