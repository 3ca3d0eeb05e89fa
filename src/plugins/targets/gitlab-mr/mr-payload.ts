/**
 * What the target reads from, and writes into, a `Merge Request Hook` payload: the head it names
 * (`object_attributes.last_commit.id`), and the same event naming a newer head (a follow-up job's event).
 */
import type { JsonObject, JsonValue } from '../../../core/types.js'

const SHA = /^[0-9a-f]{7,64}$/i

const objectOf = (value: JsonValue | undefined): JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? value : {}

/** The head the event names: a `Merge Request Hook`'s `object_attributes.last_commit.id`. */
export function payloadHead(payload: JsonObject | undefined): string | undefined {
  const id = objectOf(objectOf(payload?.['object_attributes'])['last_commit'])['id']
  return typeof id === 'string' && SHA.test(id) ? id.toLowerCase() : undefined
}

/**
 * `payload` naming `head` as the merge request's head (`object_attributes.last_commit.id`), the rest of the event
 * as it was: the event of the follow-up job that reviews a head which moved during a run.
 */
export function payloadWithHead(payload: JsonObject, head: string): JsonObject {
  const attributes = objectOf(payload['object_attributes'])
  const commit = objectOf(attributes['last_commit'])
  return { ...payload, object_attributes: { ...attributes, last_commit: { ...commit, id: head } } }
}
