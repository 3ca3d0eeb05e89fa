/**
 * Where the code hosts' events come from, read at accept time: the page the event is about and, for GitHub, the
 * webhook that delivered it. The gateway checks what these return (core/jobs/lifecycle/origin.ts) before a job keeps it.
 */
import { field, hookOf } from '../../core/jobs/lifecycle/origin.js'
import type { JobOrigin, JsonObject } from '../../core/types.js'

/**
 * GitHub: the pull request's page (`pull_request.html_url`), else the (`issue.html_url`: an issue
 * comment on a pull request names it there); the hook from `X-GitHub-Hook-ID` and its target type.
 */
export function githubOrigin(headers: Readonly<Record<string, string>>, payload: JsonObject): JobOrigin {
  const link = field(payload, 'pull_request', 'html_url') ?? field(payload, 'issue', 'html_url')
  return { link: typeof link === 'string' ? link : undefined, hook: hookOf(headers, payload) }
}

/** GitLab: a merge request's page (`object_attributes.url` of a merge request event, `merge_request.url` of a note on one). */
export function gitlabOrigin(_headers: Readonly<Record<string, string>>, payload: JsonObject): JobOrigin {
  const link = payload['object_kind'] === 'merge_request' ? field(payload, 'object_attributes', 'url') : field(payload, 'merge_request', 'url')
  return { link: typeof link === 'string' ? link : undefined }
}
