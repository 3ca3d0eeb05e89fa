/**
 * Checks of the route values `gitlab_mr` puts in GitLab API paths and statuses. They are rendered from a payload
 * whoever opened the merge request controls, so only GitLab's own shapes pass.
 */
import { SEVERITIES } from '../../../core/review/schema.js'
import { quote } from '../../shared/quote.js'

// A numeric project id, or a namespace path: groups and the project, letters, digits, `.`, `_`, `-`, `/`.
const PROJECT = /^(?:[1-9][0-9]{0,12}|[A-Za-z0-9_][A-Za-z0-9._-]*(?:\/[A-Za-z0-9_][A-Za-z0-9._-]*)+)$/
const IID = /^[1-9][0-9]{0,9}$/

/** The per-route `deliver_extra` keys that tune the review, and the values each takes. */
export const ROUTE_OPTIONS = {
  fail_on: SEVERITIES,
  status: ['true', 'false'],
  incremental: ['true', 'false'],
} as const

/** The first problem of a delivery's `deliver_extra`, or undefined. */
export function extraProblem(extra: Readonly<Record<string, string>>): string | undefined {
  const project = extra['project'] ?? ''
  const iid = extra['mr_iid'] ?? ''
  if (!PROJECT.test(project) || project.split('/').some((s) => s === '.' || s === '..')) {
    return `project ${quote(project)} is not a GitLab project id or path (check deliver_extra.project, e.g. "{project.id}" or "{project.path_with_namespace}")`
  }
  if (!IID.test(iid)) return `mr_iid ${quote(iid)} is not a positive integer (check deliver_extra.mr_iid, e.g. "{object_attributes.iid}")`
  return optionProblem(extra) ?? statusUrlProblem(extra['status_url'])
}

/** The first per-route option holding a value it cannot take; templates are checked when rendered. */
export function optionProblem(extra: Readonly<Record<string, string>>): string | undefined {
  for (const [key, allowed] of Object.entries(ROUTE_OPTIONS)) {
    const value = extra[key]
    if (value !== undefined && !value.includes('{') && !(allowed as readonly string[]).includes(value)) return `deliver_extra.${key} ${quote(value)} is not one of ${allowed.join(', ')}`
  }
  return undefined
}

/** GitLab keeps a status's `target_url` to 255 characters, and it must be a web address. */
export function statusUrlProblem(url: string | undefined): string | undefined {
  if (url === undefined || url.includes('{')) return undefined
  let ok = false
  try {
    ok = ['http:', 'https:'].includes(new URL(url).protocol)
  } catch {
    ok = false
  }
  if (!ok) return `deliver_extra.status_url ${quote(url)} is not an http(s) address (the status page, e.g. "https://hooks.example.com/status")`
  return url.length > 255 ? 'deliver_extra.status_url is longer than the 255 characters GitLab keeps' : undefined
}

