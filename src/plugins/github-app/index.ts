/** `platforms.github_app`: hookpilot as a GitHub App (installation tokens per event, reviews as `my-app[bot]`). */
export { githubAppPlugin, GITHUB_CREDENTIAL_VARIABLES } from './plugin.js'
export { createGithubApp, type GithubApp, type GithubAppOptions, type AppIdentity } from './app.js'
export { AGENT_PERMISSIONS, DELIVERY_PERMISSIONS, type AppPermissions } from './permissions.js'
export { installationScope, type InstallationScope } from './installation.js'
export type { InstallationToken } from './token-cache.js'
export type { PrivateKeySource } from './private-key.js'
