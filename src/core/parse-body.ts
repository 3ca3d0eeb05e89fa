/**
 * Step 4 of the request table: the body must be a JSON object. Bytes are decoded strictly (invalid UTF-8 is
 * refused, not replaced) and GitHub's form encoding (`payload=<json>`) is unwrapped.
 */
import { isRecord } from './config-env.js'
import type { JsonObject } from './types.js'

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false })

/** The payload as a JSON object, or undefined when the body is anything else. */
export function parsePayload(body: Uint8Array, contentType: string | undefined): JsonObject | undefined {
  let text: string
  try {
    text = utf8.decode(body)
  } catch {
    return undefined
  }
  if (contentType?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    const payload = new URLSearchParams(text).get('payload')
    if (payload === null) return undefined
    text = payload
  }
  try {
    const value: unknown = JSON.parse(text)
    return isRecord(value) ? (value as JsonObject) : undefined
  } catch {
    return undefined
  }
}

/** The event type: `X-GitHub-Event`, else `X-Gitlab-Event`, else `event_type`, else `type`, else `unknown`. */
export function eventType(headers: Readonly<Record<string, string>>, payload: JsonObject): string {
  const fromHeader = headers['x-github-event'] ?? headers['x-gitlab-event']
  if (fromHeader) return fromHeader
  for (const key of ['event_type', 'type']) {
    const value = payload[key]
    if (typeof value === 'string' && value !== '') return value
  }
  return 'unknown'
}
