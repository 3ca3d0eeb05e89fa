/**
 * The payloads `hookpilot test` and `hookpilot send` post when no `--payload` is given: trimmed GitHub (and
 * GitLab) events of the type the route accepts, with every field the documented templates use. They live in
 * code, not in files, so they work from any install layout.
 */

/** The event type sent when neither `--event` nor the route names one. */
export const SAMPLE_EVENT = 'pull_request'

/**
 * A small, realistic payload of `event` (its `action` set to `action` when given): `pull_request`, `push`,
 * `issues`, `issue_comment`, GitLab's `Merge Request Hook` and `Push Hook`; any other type gets a pull request
 * payload with `event_type` set, which generic senders use.
 */
export function samplePayload(event: string = SAMPLE_EVENT, action?: string): Record<string, unknown> {
  const base = sampleOf(event)
  if (action === undefined) return base
  if (event === 'Merge Request Hook') return { ...base, object_attributes: { ...(base['object_attributes'] as object), action } }
  return { ...base, action }
}

function sampleOf(event: string): Record<string, unknown> {
  const pr = pullRequest()
  const { repository, sender } = pr as { repository: Record<string, unknown>; sender: Record<string, unknown> }
  switch (event) {
    case 'pull_request':
      return pr
    case 'push':
      return {
        ref: 'refs/heads/main', before: '9049f1265b7d61be4a8904a9a27120d2064dab3b', after: '6dcb09b5b57875f334f61aebed695e2e4193db5e',
        commits: [{ id: '6dcb09b5b57875f334f61aebed695e2e4193db5e', message: 'Add a greeting to the README', author: { name: 'Octo Cat' } }],
        head_commit: { id: '6dcb09b5b57875f334f61aebed695e2e4193db5e', message: 'Add a greeting to the README' },
        repository, sender, pusher: { name: 'octocat' },
      }
    case 'issues':
      return { action: 'opened', issue: { number: 7, title: 'The greeting is missing', body: 'Sent by hookpilot test.', user: sender }, repository, sender }
    case 'issue_comment':
      return {
        action: 'created', issue: { number: 42, title: 'Add a greeting to the README', pull_request: { url: 'https://api.github.com/repos/octocat/hello-world/pulls/42' } },
        comment: { id: 1, body: '@bot please review', user: sender }, repository, sender,
      }
    case 'Merge Request Hook':
      return {
        object_kind: 'merge_request', event_type: 'merge_request', user: { username: 'octocat' },
        project: { id: 1, path_with_namespace: 'octocat/hello-world', web_url: 'https://gitlab.com/octocat/hello-world' },
        object_attributes: { iid: 42, title: 'Add a greeting to the README', action: 'open', source_branch: 'feature/greeting', target_branch: 'main' },
      }
    case 'Push Hook':
      return { object_kind: 'push', event_name: 'push', ref: 'refs/heads/main', project: { path_with_namespace: 'octocat/hello-world' }, commits: [] }
    default:
      return { ...pr, event_type: event }
  }
}

/** A small, realistic `pull_request` payload (action `opened`). */
function pullRequest(): Record<string, unknown> {
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
