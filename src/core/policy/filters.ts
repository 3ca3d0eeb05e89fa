/**
 * A policy's `filters:` judged against a pull request: the first filter that says "do not review" and why, in
 * words that name the rule (`filters.skip_drafts`), so the notice on the pull request says which rule decided.
 */
import { nameMatcher, pathMatcher } from './glob.js'
import type { PolicyFilters } from './policy-file.js'
import type { PullFacts } from '../code-host-types.js'

/** Why a pull request is not reviewed: the rule (a policy key) and the reason, in words. */
export interface SkipRule {
  readonly rule: string
  readonly reason: string
}

/**
 * The first filter that skips the pull request, or undefined when every filter lets it through. `changedPaths`
 * is asked only when `ignore_paths` is set (it costs the code host a listing).
 */
export async function skipRuleOf(filters: PolicyFilters | undefined, pull: PullFacts, changedPaths: () => Promise<readonly string[]>): Promise<SkipRule | undefined> {
  if (filters === undefined) return undefined
  if (filters.skip_drafts === true && pull.draft) return { rule: 'filters.skip_drafts', reason: 'the pull request is a draft' }
  if (filters.skip_bots === true && pull.authorIsBot) return { rule: 'filters.skip_bots', reason: `its author ${pull.author} is a bot` }
  if (filters.skip_authors !== undefined && nameMatcher(filters.skip_authors)(pull.author)) {
    return { rule: 'filters.skip_authors', reason: `its author ${pull.author} is in skip_authors` }
  }
  if (filters.only_authors !== undefined && !nameMatcher(filters.only_authors)(pull.author)) {
    return { rule: 'filters.only_authors', reason: `its author ${pull.author} is not in only_authors` }
  }
  const labels = labelRule(filters.labels, pull.labels)
  if (labels !== undefined) return labels
  const word = filters.skip_title?.find((w) => pull.title.toLowerCase().includes(w.toLowerCase()))
  if (word !== undefined) return { rule: 'filters.skip_title', reason: `its title holds "${word}"` }
  if (!branchAllowed(filters.base_branches, pull.baseRef)) return { rule: 'filters.base_branches', reason: `it targets ${pull.baseRef}, which base_branches does not take` }
  if (!branchAllowed(filters.head_branches, pull.headRef)) return { rule: 'filters.head_branches', reason: `it comes from ${pull.headRef}, which head_branches does not take` }
  if (filters.ignore_paths !== undefined && filters.ignore_paths.length > 0) {
    const paths = await changedPaths()
    const ignored = pathMatcher(filters.ignore_paths)
    if (paths.length > 0 && paths.every(ignored)) {
      return { rule: 'filters.ignore_paths', reason: `every changed file (${paths.length}) matches ignore_paths` }
    }
  }
  return undefined
}

/** `labels`: each plain label must be on the pull request, each `!label` must not. */
function labelRule(wanted: readonly string[] | undefined, labels: readonly string[]): SkipRule | undefined {
  const has = new Set(labels.map((l) => l.toLowerCase()))
  for (const entry of wanted ?? []) {
    const refused = entry.startsWith('!')
    const label = (refused ? entry.slice(1) : entry).toLowerCase()
    if (refused && has.has(label)) return { rule: 'filters.labels', reason: `it has the label ${entry.slice(1)}` }
    if (!refused && !has.has(label)) return { rule: 'filters.labels', reason: `it lacks the label ${entry}` }
  }
  return undefined
}

/** A branch passes when it matches a plain glob (if any is listed) and no `!glob`. */
function branchAllowed(globs: readonly string[] | undefined, branch: string): boolean {
  if (globs === undefined || globs.length === 0) return true
  const refused = globs.filter((g) => g.startsWith('!')).map((g) => g.slice(1))
  const wanted = globs.filter((g) => !g.startsWith('!'))
  if (refused.length > 0 && nameMatcher(refused)(branch)) return false
  return wanted.length === 0 || nameMatcher(wanted)(branch)
}
