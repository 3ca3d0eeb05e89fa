/**
 * The permissions each token is minted with: never the installation's whole grant, only what one use needs.
 * Requesting a permission the installation was not granted fails the mint (GitHub answers 422), so the App
 * must be given at least these when it is created (docs/github-app.md).
 */

/** Installation permissions, as GitHub names them (`contents`, `pull_requests`, `issues`). */
export type AppPermissions = Readonly<Record<string, 'read' | 'write'>>

/**
 * What the gateway itself does on a pull request: write the review comment (issue comments, which pull
 * requests share with issues) and read the pull request's head (`check_head`).
 */
export const DELIVERY_PERMISSIONS: AppPermissions = { issues: 'write', pull_requests: 'read' }

/** What the agent gets by default: it reads the code and the pull request; the gateway posts what it answers. */
export const AGENT_PERMISSIONS: AppPermissions = { contents: 'read', pull_requests: 'read' }
