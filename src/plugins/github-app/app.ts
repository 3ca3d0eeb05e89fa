/**
 * A GitHub App as the gateway uses it, through the ecosystem's own libraries: `@octokit/auth-app` signs the
 * App's JWT and mints installation tokens, `@octokit/core` makes the REST calls. Every token is minted for one
 * installation, **one repository** and the permissions one use needs (the comments, the agent's reading), and
 * kept until shortly before it expires ({@link createTokenCache}).
 */
import { createAppAuth } from '@octokit/auth-app'
import { Octokit } from '@octokit/core'
import type { Clock } from '../../core/types.js'
import type { InstallationScope } from './installation.js'
import type { AppPermissions } from './permissions.js'
import { readPrivateKey, type PrivateKeySource } from './private-key.js'
import { createTokenCache, type InstallationToken } from './token-cache.js'

/** Options of {@link createGithubApp}. */
export interface GithubAppOptions {
  /** The App's id (its settings page, "App ID"). */
  readonly appId: number
  /** Where the App's private key is (a .pem file, or its text). */
  readonly privateKey: PrivateKeySource
  /** The REST API's root; `https://api.github.com` by default (GitHub Enterprise: `https://HOST/api/v3`). */
  readonly baseUrl?: string | undefined
  /** The time token freshness is judged by; the machine's by default. */
  readonly clock?: Clock | undefined
}

/** Who the App is, as `GET /app` says. */
export interface AppIdentity {
  /** The App's id, as GitHub knows it (compared with `app_id` by the startup check). */
  readonly id: number
  /** The App's URL name (`my-app`). */
  readonly slug: string
  /** The login its comments carry: `<slug>[bot]`. */
  readonly login: string
}

/** A GitHub App: JWT-authenticated calls as the App, and tokens and clients per installation and repository. */
export interface GithubApp {
  /** The configured `app_id`. */
  readonly appId: number
  /** The REST API's root the App talks to. */
  readonly baseUrl: string
  /** A token for one installation and repository, with `permissions`, fresh for at least the refresh margin. */
  installationToken(scope: InstallationScope, permissions: AppPermissions): Promise<InstallationToken>
  /** A REST client acting as the installation, on that one repository only, with `permissions`. */
  installationClient(scope: InstallationScope, permissions: AppPermissions): Promise<Octokit>
  /** A REST client acting as the App itself (a JWT): `/app`, `/app/hook/deliveries`. */
  appClient(): Promise<Octokit>
  /** `GET /app`, asked once (again after a failure). */
  identity(): Promise<AppIdentity>
}

/**
 * A GitHub App. Nothing is read or asked until the first call: the key is read then (once).
 *
 * @example
 * ```ts
 * const app = createGithubApp({ appId: 123456, privateKey: { file: '/etc/hookpilot/app.pem' } })
 * const octokit = await app.installationClient({ installationId: 42, repositoryId: 1296269 }, { issues: 'write' })
 * await octokit.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner, repo, issue_number: 7, body })
 * ```
 */
export function createGithubApp(options: GithubAppOptions): GithubApp {
  const baseUrl = (options.baseUrl ?? 'https://api.github.com').replace(/\/+$/, '')
  const clock = options.clock ?? Date.now
  const tokens = createTokenCache(clock)
  let auth: Promise<ReturnType<typeof createAppAuth>> | undefined
  let identity: Promise<AppIdentity> | undefined

  // auth-app keeps a token cache of its own, timed by the machine's clock and an hour's guess; ours reads
  // expires_at, so its cache is given nowhere to keep anything.
  const noCache = { get: () => '', set: () => undefined }
  const appAuth = () =>
    (auth ??= readPrivateKey(options.privateKey).then(
      (privateKey) => createAppAuth({ appId: options.appId, privateKey, cache: noCache, request: new Octokit({ baseUrl }).request }),
      (err: unknown) => {
        auth = undefined
        throw err
      },
    ))

  const app: GithubApp = {
    appId: options.appId,
    baseUrl,
    async installationToken(scope, permissions) {
      const key = `${scope.installationId}|${scope.repositoryId}|${Object.entries(permissions).sort().map(([name, level]) => `${name}:${level}`).join(',')}`
      return tokens.get(key, async () => {
        const minted = await (await appAuth())({
          type: 'installation',
          installationId: scope.installationId,
          repositoryIds: [scope.repositoryId],
          permissions: { ...permissions },
          refresh: true,
        })
        return { token: minted.token, expiresAt: Date.parse(minted.expiresAt) }
      })
    },
    async installationClient(scope, permissions) {
      const { token } = await app.installationToken(scope, permissions)
      return new Octokit({ auth: token, baseUrl })
    },
    async appClient() {
      const authenticate = await appAuth()
      return new Octokit({ baseUrl, authStrategy: () => authenticate })
    },
    identity() {
      identity ??= app.appClient().then(async (octokit) => {
        const { data } = await octokit.request('GET /app')
        const slug = data?.slug ?? ''
        return { id: data?.id ?? 0, slug, login: `${slug}[bot]` }
      })
      identity.catch(() => (identity = undefined))
      return identity
    },
  }
  return app
}
