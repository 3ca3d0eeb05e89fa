/**
 * What the bot writes on a pull request of its own accord: the notice that a review did not run (with the rule
 * that decided), the answers to `help`, `config` and `why`. Each is built from the pull request's own facts and
 * the repository's own policy only: nothing of the gateway's configuration, its secrets or its logs.
 */
import { stringify } from 'yaml'
import type { JobRecord } from '../jobs/lifecycle/job-record.js'
import { COMMAND_HELP, COMMANDS } from './commands.js'
import { issueLines } from './policy-file.js'
import type { ReadPolicy } from './policy-reader.js'
import type { RouteCommands } from '../route-types.js'

/** Marks every text the policy posts, so the bot's own comments are never read as commands. */
export const POLICY_MARK = '<!-- hookpilot:policy -->'

/** The notice that a pull request's review did not run, and the rule that decided. */
export function skipNotice(rule: string, reason: string): string {
  return `${POLICY_MARK}\n**No review:** ${reason} (\`${rule}\`).\n\nThe repository's policy file decides this; a trusted commenter can still ask with \`review\`.`
}

/** The notice that a pull request is paused. */
export function pauseNotice(bot: string, by: string): string {
  return `${POLICY_MARK}\n**Reviews paused** by @${by}. New pushes are not reviewed until someone writes \`@${bot} resume\`.`
}

/** A budget that refused a review, as its notice names it. */
export interface RefusedBudget {
  readonly kind: 'pull_request' | 'repository_day' | 'installation_month'
  /** When its period renews (undefined: never, a pull request's). */
  readonly renewsAt: number | undefined
  /** Whose limit refused: the gateway's config, or the repository's policy file. */
  readonly by: 'config' | 'policy'
}

/**
 * The notice that a budget refused a review (job `job`): which budget, whose, and when it renews; never its
 * amounts, which are the gateway's configuration (the operator reads them in the job's reason).
 */
export function budgetNotice(budget: RefusedBudget, job: string): string {
  const renews = budget.renewsAt === undefined ? '' : ` It renews at ${new Date(budget.renewsAt).toISOString().slice(0, 16).replace('T', ' ')} UTC; pushes after that are reviewed.`
  const what =
    budget.kind === 'pull_request' ? "this pull request's reviews have used their budget"
      : budget.kind === 'repository_day' ? "this repository's reviews have used today's budget (UTC)"
        : "this organisation's reviews have used this month's budget (UTC)"
  const setting = budget.by === 'policy' ? `\`budgets.${budget.kind}\` in the repository's policy file` : `the gateway's \`costs.budgets.${budget.kind}\``
  return `${POLICY_MARK}\n**No review:** ${what} (${setting}).${renews}\n\nOnce the budget has room, the gateway's operator can run this review with \`hookpilot jobs retry ${job}\`.`
}

/** The notice that a review failed for good (no reason: that is the operator's, in the gateway's logs). */
export function failedNotice(): string {
  return `${POLICY_MARK}\n**The review failed** and will not be tried again by itself. A trusted commenter can ask again with \`review\`; the gateway's operator can see why in its logs.`
}

/** The notice that the repository's policy file does not apply, with its errors: the review runs with the gateway's settings. */
export function invalidPolicyNotice(read: ReadPolicy): string {
  const where = read.source === undefined ? 'the policy file' : `\`${read.source.path}\` (at ${read.source.ref.slice(0, 7)})`
  const lines = issueLines(read.issues).map((line) => `- ${line}`).join('\n')
  return `${POLICY_MARK}\n**The policy file does not apply:** ${where} has problems, so this review uses the gateway's settings.\n\n${lines}`
}

/**
 * Who an association names, on both code hosts (a GitLab role is read as one: Owner, Maintainer, Developer; see
 * commands.ts's associationOf).
 */
const TRUSTED_WORDS: Readonly<Record<string, string>> = {
  OWNER: 'owners',
  MEMBER: 'members (on GitLab, Maintainers)',
  COLLABORATOR: 'collaborators (on GitLab, Developers)',
  CONTRIBUTOR: 'earlier contributors',
  FIRST_TIME_CONTRIBUTOR: 'first-time contributors',
  FIRST_TIMER: 'first-timers',
  MANNEQUIN: 'mannequins',
  NONE: 'anyone',
}

/** `help`: the commands, and who may give them (the route's `trusted` list, and the permission asked). */
export function helpReply(commands: Pick<RouteCommands, 'bot' | 'trusted' | 'askPermission'>): string {
  const { bot } = commands
  const who = commands.trusted.map((association) => TRUSTED_WORDS[association] ?? association.toLowerCase())
  if (commands.askPermission) who.push('anyone the code host says may write')
  const from = who.length === 0 ? 'nobody: this route trusts no commenter' : `the repository's ${who.join(', ')}`
  const lines = COMMANDS.map((name) => `- \`@${bot} ${name}\`: ${COMMAND_HELP[name]}`)
  return `${POLICY_MARK}\nCommands (from ${from}):\n\n${lines.join('\n')}\n- \`@${bot} ignore\` in the description: never review this pull request`
}

/** `config`: the policy as this review reads it (only what the repository wrote and the gateway let through). */
export function configReply(read: ReadPolicy): string {
  if (read.source === undefined) return `${POLICY_MARK}\nThis review reads no policy file from the repository.`
  const at = `\`${read.source.path}\` at ${read.source.ref.slice(0, 7)} (the base branch)`
  if (!read.source.found) return `${POLICY_MARK}\nNo policy file: ${at} does not exist, so the gateway's settings apply.`
  const problems = read.issues.length === 0 ? '' : `\n\nIt does not apply:\n\n${issueLines(read.issues).map((l) => `- ${l}`).join('\n')}`
  const refused = read.refused.length === 0 ? '' : `\n\nIgnored (a repository may not set these here): ${read.refused.map((k) => `\`${k}\``).join(', ')}`
  const body = Object.keys(read.policy).length === 0 ? '(nothing that applies)' : `\`\`\`yaml\n${stringify(read.policy).trimEnd()}\n\`\`\``
  // The gateway's own limits are its configuration: said to exist, never shown.
  const budgets = read.policy.budgets === undefined ? '' : "\n\nThese budgets apply where they are lower than the gateway's own."
  return `${POLICY_MARK}\nThe policy read from ${at}:\n\n${body}${budgets}${problems}${refused}`
}

/** How many jobs `why` lists. */
export const WHY_JOBS = 10

/** `why`: the pull request's recent jobs, newest first, each with what became of it in words the author may read. */
export function whyReply(jobs: readonly JobRecord[], bot: string, paused: { by: string } | undefined): string {
  const header = paused === undefined ? '' : `Reviews are **paused** (by @${paused.by}); \`@${bot} resume\` starts them again.\n\n`
  if (jobs.length === 0) return `${POLICY_MARK}\n${header}No review jobs of this pull request are kept.`
  const rows = jobs.slice(0, WHY_JOBS).map((job) => `| ${new Date(job.receivedAt).toISOString().slice(0, 16).replace('T', ' ')} | ${job.event} | ${job.state} | ${publicReason(job)} |`)
  return `${POLICY_MARK}\n${header}Recent jobs of this pull request, newest first:\n\n| received (UTC) | event | outcome | why |\n|---|---|---|---|\n${rows.join('\n')}`
}

/**
 * What `why` says of a job: the policy's own reasons (a rule of the repository's file, a pause) and the states in
 * words; a failure's reason is the operator's (it may quote the agent, a path, a setting), so it is not shown.
 */
function publicReason(job: JobRecord): string {
  switch (job.state) {
    case 'done':
      return job.url === undefined ? 'posted' : `[posted](${job.url})`
    case 'queued':
      return 'waiting for its turn'
    case 'running':
      return 'running now'
    case 'superseded':
      return 'replaced by a newer event of this pull request'
    case 'failed':
      return 'failed; the operator can see why'
    case 'skipped': {
      const note = job.note ?? ''
      return note.startsWith(POLICY_REASON) ? escapeCell(note.slice(POLICY_REASON.length)) : 'nothing to post'
    }
    default:
      return job.state
  }
}

/** The start of a skipped job's reason that came from the policy, so `why` may show the rest. */
export const POLICY_REASON = 'policy: '

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ').slice(0, 200)
}
