/**
 * `platforms.github_app`: the App's id, its private key (a file, or the PEM text from a variable), the API root,
 * and the agent's permissions. Its own module, so the github_comment plugin reads the same options without
 * importing the App's plugin.
 */
import * as v from 'valibot'
import { boolean, integer, nonBlank, text } from '../../core/config/schema-kit.js'
import { ConfigError, type ConfigIssue } from '../../core/errors.js'
import { at } from '../../core/plugin-api/sections.js'
import { validHook } from '../../core/jobs/lifecycle/origin.js'
import type { SetupContext } from '../../core/plugin-api/definition.js'
import { resolve } from 'node:path'
import type { GithubApp } from './app.js'
import { appRouteCheck, type AppRouteCheck } from './app-routes.js'
import { AGENT_PERMISSIONS } from './permissions.js'
import type { PrivateKeySource } from './private-key.js'

/** Where the options are in config.yaml. */
export const SECTION = 'platforms.github_app'

const level = v.picklist(['read', 'write'], 'expected read or write')

/** The section's schema; every key optional, so a configuration without an App validates. */
export const githubAppOptions = v.object({
  app_id: v.optional(integer(1)),
  private_key_file: v.optional(nonBlank('the path of the App\'s .pem key')),
  private_key: v.optional(text),
  api_url: v.optional(v.pipe(text, v.url('expected the REST API root, e.g. https://api.github.com')), 'https://api.github.com'),
  reconcile: v.optional(
    v.object({
      on_start: v.optional(boolean, false),
      every_minutes: v.optional(integer(0), 0),
      window_hours: v.optional(integer(1, 72), 3),
      max_pages: v.optional(integer(1, 100), 10),
      // Repository and organisation hooks: a token that may read them (a secret), and hooks to look at besides
      // those the route's jobs came through.
      token: v.optional(text),
      hooks: v.optional(v.array(v.pipe(text, v.check((h: string) => validHook(h) !== undefined && h !== 'app/hook', 'expected a hook as repos/OWNER/NAME/hooks/ID or orgs/OWNER/hooks/ID'))), []),
    }),
    { on_start: false, every_minutes: 0, window_hours: 3, max_pages: 10, hooks: [] },
  ),
  route: v.optional(nonBlank('the route the App\'s webhook URL names, e.g. review')),
  // The App's own webhook secret (a list while rotating): installation tokens are minted only for routes that
  // verify with it alone (app-routes.ts).
  webhook_secret: v.optional(v.union([text, v.array(text)], 'expected the App\'s webhook secret, or a list of them while rotating')),
  agent_permissions: v.optional(v.record(v.pipe(text, v.regex(/^[a-z_]+$/, 'expected a permission name, e.g. contents')), level), { ...AGENT_PERMISSIONS }),
})

/** The validated section. */
export type GithubAppConfig = v.InferOutput<typeof githubAppOptions>

/**
 * Which routes the App mints installation tokens for (those verified with its own webhook secret only), read
 * from the configuration as `ctx` holds it.
 */
export function appRoutesOf(ctx: Pick<SetupContext, 'config'>): AppRouteCheck {
  const options = (at(ctx.config, SECTION) ?? {}) as Partial<GithubAppConfig>
  return appRouteCheck(ctx.config, options.webhook_secret)
}

/** The hooks token, when `reconcile.token` holds one (an unset variable leaves it empty: no token). */
export function hooksToken(options: Partial<GithubAppConfig>): string | undefined {
  const token = options.reconcile?.token?.trim()
  return token === undefined || token === '' ? undefined : token
}

/** The App's settings, checked: undefined when no App is configured (no `app_id`, no key). */
export function appSettings(options: Partial<GithubAppConfig>, baseDir: string): { appId: number; privateKey: PrivateKeySource; keyPath: string } | undefined {
  const { app_id: appId, private_key_file: file, private_key: pem } = options
  if (appId === undefined && file === undefined && pem === undefined) return undefined
  const issues: ConfigIssue[] = []
  if (appId === undefined) issues.push({ path: `${SECTION}.app_id`, message: 'the App\'s id is needed (the "App ID" on the App\'s settings page)' })
  if ((file === undefined) === (pem === undefined || pem.trim() === '')) {
    issues.push({ path: `${SECTION}.private_key_file`, message: 'give the App\'s private key once: private_key_file (a path) or private_key (the PEM text, e.g. "${GITHUB_APP_PRIVATE_KEY}")' })
  }
  if (issues.length > 0 || appId === undefined) throw new ConfigError(issues)
  return file !== undefined
    ? { appId, privateKey: { file: resolve(baseDir, file) }, keyPath: `${SECTION}.private_key_file` }
    : { appId, privateKey: { pem: pem ?? '' }, keyPath: `${SECTION}.private_key` }
}

/**
 * The gateway's one GitHub App, shared by every plugin that asks (the App's own plugin, github_comment,
 * `hookpilot reconcile`): made from the section the first time, the same object afterwards. Undefined when
 * none is configured.
 */
export async function githubAppOf(ctx: Pick<SetupContext, 'config' | 'baseDir' | 'resources' | 'clock'>): Promise<GithubApp | undefined> {
  const options = (at(ctx.config, SECTION) ?? {}) as Partial<GithubAppConfig>
  const settings = appSettings(options, ctx.baseDir)
  if (settings === undefined) return undefined
  const { createGithubApp } = await import('./app.js')
  return ctx.resources.get('github_app', () => createGithubApp({ ...settings, baseUrl: options.api_url, clock: ctx.clock }))
}
