/**
 * The payload `hookpilot test` and `hookpilot send` post when no `--payload` is given: a trimmed GitHub
 * `pull_request` "opened" event with every field the documented templates use. It lives in code, not in a
 * file, so it works from any install layout.
 */

/** The event type of {@link samplePayload}. */
export const SAMPLE_EVENT = 'pull_request'

/** A small, realistic `pull_request` payload (action `opened`). */
export function samplePayload(): Record<string, unknown> {
  const repo = { id: 1296269, name: 'hello-world', full_name: 'octocat/hello-world', private: false, html_url: 'https://github.com/octocat/hello-world', default_branch: 'main' }
  const user = { login: 'octocat', id: 1, type: 'User', html_url: 'https://github.com/octocat' }
  return {
    action: 'opened',
    number: 42,
    pull_request: {
      number: 42,
      state: 'open',
      title: 'Add a greeting to the README',
      body: 'This is a test delivery sent by `hookpilot test`.',
      user,
      html_url: 'https://github.com/octocat/hello-world/pull/42',
      draft: false,
      head: { ref: 'feature/greeting', sha: '6dcb09b5b57875f334f61aebed695e2e4193db5e', repo },
      base: { ref: 'main', sha: '9049f1265b7d61be4a8904a9a27120d2064dab3b', repo },
      additions: 3,
      deletions: 1,
      changed_files: 1,
      created_at: '2024-01-01T12:00:00Z',
      updated_at: '2024-01-01T12:00:00Z',
    },
    repository: repo,
    sender: user,
  }
}
