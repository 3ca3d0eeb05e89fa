/**
 * The environment that points the real `gh` at a fake GitHub. For the host `github.localhost` gh speaks plain
 * HTTP to `http://api.github.localhost/` (REST) and `/graphql` (a host with a port would be taken for GitHub
 * Enterprise, over HTTPS). The token is in a `hosts.yml` of gh's own config folder, not in `GH_TOKEN`: gh would
 * take that for github.com's token too, and `gh auth status` (the gateway's startup check) would then fail on
 * github.com, which the fake does not serve. A `GH_TOKEN` set beside it still wins, as it does for gh. Nothing resolves `*.localhost` for gh (its resolver asks
 * DNS), so the fake is also gh's HTTP proxy: gh sends it every request in absolute form, and no port 80 or
 * /etc/hosts entry is needed. Node's own fetch does not read `HTTP_PROXY`, so a gateway given this environment
 * whole still reaches everything else directly; a REST client given a base URL (Octokit) uses the fake's URL.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** The host gh is told to use. */
export const FAKE_GH_HOST = 'github.localhost'

/** The origin gh addresses for that host, through its proxy. */
export const FAKE_API_ORIGIN = 'http://api.github.localhost'

/**
 * Writes gh's config for the fake into the empty folder `configDir` (a developer's own `gh auth login` is
 * neither read nor changed): `token` as the login of `login` on {@link FAKE_GH_HOST}.
 */
export function writeFakeGhConfig(configDir: string, token: string, login: string): void {
  const hosts = `${FAKE_GH_HOST}:\n    oauth_token: ${JSON.stringify(token)}\n    user: ${JSON.stringify(login)}\n    git_protocol: https\n`
  writeFileSync(join(configDir, 'hosts.yml'), hosts, { mode: 0o600 })
}

/** The variables gh needs to talk to the fake at `url`, with its config in `configDir` ({@link writeFakeGhConfig}). */
export function fakeGhEnvironment(url: string, configDir: string): Record<string, string> {
  return {
    GH_HOST: FAKE_GH_HOST,
    GH_CONFIG_DIR: configDir,
    GH_NO_UPDATE_NOTIFIER: '1',
    GH_PROMPT_DISABLED: '1',
    HTTP_PROXY: url,
    http_proxy: url,
    // A NO_PROXY naming localhost (common in a developer's shell) would send gh around the proxy to a DNS lookup that fails.
    NO_PROXY: '',
    no_proxy: '',
  }
}
