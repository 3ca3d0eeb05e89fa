/**
 * Checks of the values `github_comment` puts on gh's command line. They are rendered from a payload that
 * whoever opened the pull request controls, so only GitHub's own shapes pass: nothing that could read as an
 * option (`--repo=x`), a path (`../x`) or anything but a number.
 */
import { quote } from '../../shared/quote.js'

// GitHub owners: letters, digits and single hyphens, not at the start, at most 39. Repositories: letters,
// digits, `.`, `_`, `-`, at most 100, and not `.` or `..`.
const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/
const REPO = /^[A-Za-z0-9._-]{1,100}$/
const PR_NUMBER = /^[1-9][0-9]{0,9}$/

/** The reason `repo` is not an `owner/repo` GitHub could have, or undefined when it is one. */
export function repoProblem(repo: string): string | undefined {
  const [owner, name, ...more] = repo.split('/')
  const ok = more.length === 0 && owner !== undefined && name !== undefined && OWNER.test(owner) && REPO.test(name) && name !== '.' && name !== '..'
  return ok ? undefined : `repo ${quote(repo)} is not an owner/repo name (check deliver_extra.repo, e.g. "{repository.full_name}")`
}

/** The reason `prNumber` is not a positive integer, or undefined when it is one. */
export function prNumberProblem(prNumber: string): string | undefined {
  return PR_NUMBER.test(prNumber) ? undefined : `pr_number ${quote(prNumber)} is not a positive integer (check deliver_extra.pr_number, e.g. "{number}")`
}


/**
 * How `github_comment` posts: a new comment each time, one comment per route and pull request (edited), or one
 * pull-request review per route and reviewed head (findings inline on the diff).
 */
export type CommentMode = 'new' | 'sticky' | 'review'

/** The per-route `deliver_extra` keys that override `platforms.github` or tune review mode, and the values each takes. */
export const ROUTE_OVERRIDES = {
  mode: ['new', 'sticky', 'review'],
  check_head: ['true', 'false'],
  request_changes_at: ['critical', 'major', 'minor', 'nit'],
  fail_on: ['critical', 'major', 'minor', 'nit'],
  check: ['true', 'false'],
  incremental: ['true', 'false'],
} as const

/** The reason a per-route override holds a value it cannot take, or undefined when it is absent or valid. */
export function overrideProblem(extra: Readonly<Record<string, string>>): string | undefined {
  for (const [key, allowed] of Object.entries(ROUTE_OVERRIDES)) {
    const value = extra[key]
    if (value !== undefined && !(allowed as readonly string[]).includes(value)) {
      return `deliver_extra.${key} ${quote(value)} is not one of ${allowed.join(', ')}`
    }
  }
  return undefined
}
