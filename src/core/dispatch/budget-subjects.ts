/**
 * What a job's spend is charged to, read from its event's payload: its pull request (or merge request), its
 * repository, and its installation (the GitHub App's, else the organisation or the owner; GitLab's namespace).
 * An event without one (a push has no pull request) is not charged to that budget.
 */
import type { JsonObject } from '../types.js'
import { lookup } from '../routes/template.js'

/** The three kinds of budget, in the order a run is checked against them. */
export type BudgetKind = 'pull_request' | 'repository_day' | 'installation_month'

/** A budget's subject for one job: which budget, and whose (`octo/repo#7`, `octo/repo`, `installation 42`). */
export interface BudgetSubject {
  readonly kind: BudgetKind
  readonly subject: string
}

const text = (payload: JsonObject, path: string): string | undefined => {
  const value = lookup(payload, path)
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined
}

/** The repository of a GitHub or GitLab event. */
export function repositoryOf(payload: JsonObject): string | undefined {
  return text(payload, 'repository.full_name') ?? text(payload, 'project.path_with_namespace')
}

/** The subjects `payload` is charged to, in {@link BudgetKind}'s order. */
export function budgetSubjects(payload: JsonObject): BudgetSubject[] {
  const subjects: BudgetSubject[] = []
  const repository = repositoryOf(payload)
  const github = text(payload, 'pull_request.number') ?? (lookup(payload, 'issue.pull_request') === undefined ? undefined : text(payload, 'issue.number'))
  const gitlab = text(payload, 'object_attributes.iid') !== undefined && text(payload, 'object_kind') === 'merge_request' ? text(payload, 'object_attributes.iid') : undefined
  if (repository !== undefined && github !== undefined) subjects.push({ kind: 'pull_request', subject: `${repository}#${github}` })
  else if (repository !== undefined && gitlab !== undefined) subjects.push({ kind: 'pull_request', subject: `${repository}!${gitlab}` })
  if (repository !== undefined) subjects.push({ kind: 'repository_day', subject: repository })
  const installation = text(payload, 'installation.id')
  const owner = text(payload, 'organization.login') ?? text(payload, 'repository.owner.login') ?? text(payload, 'project.namespace')
  if (installation !== undefined) subjects.push({ kind: 'installation_month', subject: `installation ${installation}` })
  else if (owner !== undefined) subjects.push({ kind: 'installation_month', subject: owner })
  return subjects
}
