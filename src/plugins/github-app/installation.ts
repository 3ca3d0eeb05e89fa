/**
 * Which installation and repository an event is about, read from its payload: GitHub puts `installation.id`
 * in every delivery to an App, and `repository.id` in every repository event. A token is minted for exactly
 * that pair.
 */
import type { JsonObject } from '../../core/types.js'

/** The installation and the one repository a token is scoped to. */
export interface InstallationScope {
  /** `installation.id` of the event: whose installation of the App it came through. */
  readonly installationId: number
  /** `repository.id` of the event: the one repository the token may touch. */
  readonly repositoryId: number
}

/** The scope of an event, or undefined when its payload names no installation or no repository. */
export function installationScope(payload: JsonObject | undefined): InstallationScope | undefined {
  const installationId = idAt(payload, 'installation')
  const repositoryId = idAt(payload, 'repository')
  return installationId === undefined || repositoryId === undefined ? undefined : { installationId, repositoryId }
}

function idAt(payload: JsonObject | undefined, key: string): number | undefined {
  const value = payload?.[key]
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  const id = value['id']
  return typeof id === 'number' && Number.isSafeInteger(id) && id > 0 ? id : undefined
}
