/**
 * The App's startup check (`serve`, `hookpilot check`): the key is read and GitHub is asked `GET /app` with the
 * App's JWT. A key that cannot be read, or that GitHub refuses for this `app_id`, is a problem (no comment or
 * token could ever be made); GitHub out of reach is a warning (an outage must not stop a restart).
 */
import { GatewayError, messageOf } from '../../core/errors.js'
import type { StartupFinding } from '../../core/types.js'
import { redact } from '../shared/redact.js'
import type { GithubApp } from './app.js'
import { SECTION } from './options.js'
import { keyFileExposure, type PrivateKeySource } from './private-key.js'

/**
 * What is wrong with the App's id and key, found now rather than by the first job; with the key's `source`, also
 * a warning for a key file others can read.
 */
export async function appCheck(app: GithubApp, keyPath: string, source?: PrivateKeySource): Promise<StartupFinding[]> {
  const exposed = source !== undefined && 'file' in source ? await keyFileExposure(source.file) : undefined
  const warnings: StartupFinding[] = exposed === undefined ? [] : [{ severity: 'warning', path: keyPath, message: exposed }]
  return [...await identityCheck(app, keyPath), ...warnings]
}

async function identityCheck(app: GithubApp, keyPath: string): Promise<StartupFinding[]> {
  try {
    const who = await app.identity()
    if (who.id !== app.appId) {
      return [{ severity: 'problem', path: `${SECTION}.app_id`, message: `GitHub says this key is App ${who.id} ("${who.slug}"), not ${app.appId}: set app_id to ${who.id}` }]
    }
    return []
  } catch (err) {
    if (GatewayError.is(err)) return [{ severity: 'problem', path: keyPath, message: err.message }]
    const status = (err as { status?: unknown }).status
    const said = redact(messageOf(err)).replace(/ - https:\/\/docs\.github\.com\S*$/, '').slice(0, 200)
    if (status === 401 || status === 404) {
      return [{
        severity: 'problem',
        path: `${SECTION}.app_id`,
        message: `GitHub refused the App's JWT (GET /app answered ${status}: ${said}): app_id ${app.appId} and the private key do not belong together. Check the "App ID" on the App's settings page, and that the key was generated there and not deleted`,
      }]
    }
    return [{ severity: 'warning', path: SECTION, message: `could not ask GitHub (${app.baseUrl}) about the App: ${said}; its id and key are unchecked` }]
  }
}
