/**
 * The fake GitLab's own endpoints, outside GitLab's API (`/-/fake/...`, answered without a token): what
 * `hookpilot dev gitlab push` does from another shell, a push to a merge request with the sample diff.
 */
import { SAMPLE_DIFFS } from './sample.js'

/** A commit SHA as the fake takes it. */
export const SHA_PATTERN = /^[0-9a-f]{7,64}$/i

/** `group/project!iid`: a merge request named on a command line. */
export const MR_PATTERN = /^([A-Za-z0-9_][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_][A-Za-z0-9._-]*)+)!([1-9][0-9]{0,9})$/

/** Answers `POST /-/fake/push {project, iid, head}`: the merge request's head moves (declared when new); the fake's `push` does it. */
export function adminPush(body: string, push: (project: string, iid: number, head: string, diffs: typeof SAMPLE_DIFFS) => number): readonly [number, unknown] {
  let parsed: { project?: unknown, iid?: unknown, head?: unknown }
  try {
    parsed = JSON.parse(body) as typeof parsed
  } catch {
    return [400, { error: 'a JSON body {project, iid, head}' }]
  }
  const { project, iid, head } = parsed
  if (typeof project !== 'string' || !MR_PATTERN.test(`${project}!1`) || typeof iid !== 'number' || !Number.isInteger(iid) || iid < 1 || typeof head !== 'string' || !SHA_PATTERN.test(head)) {
    return [400, { error: 'project (group/project), iid (a positive integer) and head (a commit SHA) are required' }]
  }
  const id = push(project, iid, head, SAMPLE_DIFFS)
  return [200, { project_id: id, iid, head: head.toLowerCase() }]
}
