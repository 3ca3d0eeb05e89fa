/**
 * The events that close a pull request (or a merge request), which end its concurrency group's jobs even on a
 * route whose `actions` do not take them (docs/costs.md, "A closed pull request ends its group").
 */

/** The event types and actions that close or merge a pull request, per code host. */
const CLOSING: Readonly<Record<string, readonly string[]>> = {
  // GitHub: a merged pull request is `closed` too (with `pull_request.merged: true`).
  pull_request: ['closed'],
  // GitLab: `close` and `merge` are the merge request's `object_attributes.action`.
  'Merge Request Hook': ['close', 'merge'],
}

/** Whether an event of `type` with `action` (the payload's, as the route's `actions` read it) closed or merged a pull request. */
export function closesPullRequest(type: string, action: string): boolean {
  return CLOSING[type]?.includes(action) === true
}
