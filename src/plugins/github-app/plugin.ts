/**
 * `platforms.github_app`: hookpilot acts as a GitHub App. Reviews are posted by `github_comment` as the App
 * (`my-app[bot]`, through the REST API), each agent gets a short-lived installation token for its event's
 * repository as `GH_TOKEN` (and no other GitHub credential of the gateway's), and the start checks the App's
 * id and key against GitHub.
 */
import { ConfigError } from '../../core/errors.js'
import { definePlugin } from '../../core/plugin-api/plugin.js'
import type { AgentEnvironment } from '../../core/types.js'
import type { GatewayPlugin } from '../../core/plugin-api/gateway-plugin.js'
import { appRoutesOf, appSettings, githubAppOf, githubAppOptions, hooksToken, SECTION } from './options.js'

/**
 * Variables of the gateway's environment that gh, git or an agent would take for a GitHub credential: an
 * agent of an App gets none of them, only its job's token.
 */
export const GITHUB_CREDENTIAL_VARIABLES = ['GH_TOKEN', 'GITHUB_TOKEN', 'GH_ENTERPRISE_TOKEN', 'GITHUB_ENTERPRISE_TOKEN'] as const

/** The GitHub App plugin; inactive until `app_id` is set. */
export const githubAppPlugin = definePlugin({
  name: 'github_app',
  section: SECTION,
  options: githubAppOptions,
  secrets: ['private_key', 'reconcile.token', 'webhook_secret'],
  async setup(options, ctx) {
    const settings = appSettings(options, ctx.baseDir)
    const app = await githubAppOf(ctx)
    const token = hooksToken(options)
    const { reconcile } = options
    const scheduled = (reconcile.on_start || reconcile.every_minutes > 0) && (app !== undefined || token !== undefined)
    if (scheduled && options.route === undefined) {
      throw new ConfigError([{ path: `${SECTION}.route`, message: 'reconcile needs the route the hooks\' URL names (e.g. review)' }])
    }
    let schedule: { stop(): void } | undefined
    // Loaded, and the token's client made, only when reconcile runs on its own here.
    const scheduler = scheduled ? (await import('./schedule.js')).scheduleReconcile : undefined
    const client = scheduled && token !== undefined ? new (await import('@octokit/core')).Octokit({ auth: token, baseUrl: options.api_url }) : undefined
    // Reconcile needs the gateway's jobs and events, which observe() is given once the gateway is composed.
    const observe: GatewayPlugin['observe'] = (events, { state }) => {
      if (scheduler && options.route !== undefined) schedule = scheduler({ app, token: client }, options.route, reconcile, state, events, ctx.log)
    }
    const close = async () => schedule?.stop()
    if (settings === undefined || app === undefined) return { name: 'github_app', observe, close }
    const permissions = options.agent_permissions
    const { installationScope } = await import('./installation.js')
    const { appCheck } = await import('./check.js')
    const cleared: AgentEnvironment = Object.fromEntries(GITHUB_CREDENTIAL_VARIABLES.map((name) => [name, null]))
    const fromApp = appRoutesOf(ctx)
    const { notAppRoute } = await import('./app-routes.js')
    return {
      name: 'github_app',
      async agentEnvironment(job, run) {
        // Only a delivery verified with the App's own secret may name the installation a token is minted for.
        if (!fromApp(job.route)) {
          if (installationScope(job.payload) !== undefined) run.log.warn(`no GitHub token for the agent: ${notAppRoute(job.route)}`, { route: job.route, delivery: job.deliveryId })
          return cleared
        }
        const scope = installationScope(job.payload)
        // An event the App did not send (another route's) still gets none of the gateway's GitHub credentials.
        if (scope === undefined) return cleared
        const { token } = await app.installationToken(scope, permissions)
        return { ...cleared, GH_TOKEN: token }
      },
      preflight: () => appCheck(app, settings.keyPath, settings.privateKey),
      // The App's key mints a token for every repository it is installed on: no agent reads its file.
      privatePaths: 'file' in settings.privateKey ? [settings.privateKey.file] : [],
      observe,
      close,
    }
  },
})
