/**
 * The name of a route's check (GitHub's check run, a commit status's context, GitLab's commit status):
 * `hookpilot/<route>`, what branch protection or a merge check names as required, the same on every code host.
 */
export function reviewStatusName(route: string): string {
  return `hookpilot/${route}`
}
