/**
 * The environment that points the real `gh` at a fake GitHub. For the host `github.localhost` gh speaks plain
 * HTTP to `http://api.github.localhost/` (REST) and `/graphql`, with `GH_TOKEN` as its token (a host with a port
 * would be taken for GitHub Enterprise, over HTTPS). Nothing resolves `*.localhost` for gh (its resolver asks
 * DNS), so the fake is also gh's HTTP proxy: gh sends it every request in absolute form, and no port 80 or
 * /etc/hosts entry is needed. Node's own fetch does not read `HTTP_PROXY`, so a gateway given this environment
 * whole still reaches everything else directly; a REST client given a base URL (Octokit) uses the fake's URL.
 */

/** The host gh is told to use. */
export const FAKE_GH_HOST = 'github.localhost'

/** The origin gh addresses for that host, through its proxy. */
export const FAKE_API_ORIGIN = 'http://api.github.localhost'

/**
 * The variables gh needs to talk to the fake at `url` with `token`, and an empty `configDir` of its own (so a
 * developer's own `gh auth login` is neither read nor changed).
 */
export function fakeGhEnvironment(url: string, token: string, configDir: string): Record<string, string> {
  return {
    GH_HOST: FAKE_GH_HOST,
    GH_TOKEN: token,
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
