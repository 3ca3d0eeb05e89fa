/**
 * The commands a pull request's comment may give the bot: `@<bot> review` (what changed since the last review),
 * `full review`, `pause`, `resume`, `why`, `help` and `config`, one per comment, at the start of a line: one grammar
 * for every code host, read from GitHub's comment events and GitLab's `Note Hook`. Who may give them is the route's
 * `policy.commands.trusted`: the comment author's association on the repository, as GitHub's event says it, or as
 * the code host's word on the author's permission stands for it (GitLab's events say nothing of it).
 */
import type { RepoPermission } from '../code-host-types.js'
import type { JsonObject, JsonValue } from '../types.js'
import type { RouteCommands } from '../route-types.js'

/** A command's name. */
export type CommandName = 'review' | 'full review' | 'pause' | 'resume' | 'why' | 'help' | 'config'

/** Every command, longest first (so `full review` is read before `review`). */
export const COMMANDS: readonly CommandName[] = Object.freeze(['full review', 'review', 'pause', 'resume', 'why', 'help', 'config'])

/** What each command does, for `help`. */
export const COMMAND_HELP: Readonly<Record<CommandName, string>> = Object.freeze({
  'review': 'review what changed since the last review',
  'full review': 'review the whole pull request again',
  'pause': 'stop reviewing this pull request until `resume`',
  'resume': 'review again, starting with the newest head',
  'why': "list this pull request's recent review jobs and what became of each",
  'help': 'show this list',
  'config': "show the repository's policy as this review reads it",
})

/** GitLab's event of a new note (a comment), on a merge request or anything else. */
const NOTE_HOOK = 'Note Hook'

/**
 * The events a command comes in: a comment on the pull request's conversation or on its diff (GitHub), a note on
 * a merge request (GitLab).
 */
export const COMMAND_EVENTS: readonly string[] = Object.freeze(['issue_comment', 'pull_request_review_comment', NOTE_HOOK])

/** A command found in a comment, with who wrote it and where. */
export interface PullCommand {
  readonly name: CommandName
  /** The comment's id (a reaction acknowledges it). */
  readonly commentId: number
  /** `issue_comment` or `pull_request_review_comment`: where the reaction goes. */
  readonly on: 'issue' | 'review'
  readonly author: string
  /** The author's numeric id, when the event names it (GitLab's `user.id`: its members API asks by id). */
  readonly authorId?: number | undefined
  /**
   * `author_association` as the event says it (`OWNER`, `MEMBER`, `COLLABORATOR`, `NONE`...); undefined when the
   * event says none (GitLab's): the code host is asked for the author's permission ({@link associationOf}).
   */
  readonly association: string | undefined
  /** The pull request's number (a merge request's iid). */
  readonly number: number
}

/** The command `body` gives `bot` (`@bot full review`), or undefined; only the first line that addresses the bot counts. */
export function commandIn(body: string, bot: string): CommandName | undefined {
  const name = bot.replace(/\[bot\]$/, '').toLowerCase()
  for (const raw of body.split('\n')) {
    const line = raw.trim().toLowerCase()
    const address = [`@${name}[bot] `, `@${name} `].find((prefix) => line.startsWith(prefix))
    if (address === undefined) continue
    const rest = line.slice(address.length).trim().replace(/\s+/g, ' ').replace(/[.!]$/, '')
    return COMMANDS.find((command) => rest === command)
  }
  return undefined
}

/**
 * The command a comment event carries, or undefined when it is not a new comment on a pull request addressed to the
 * bot: GitHub's `issue_comment` (on a pull request) and `pull_request_review_comment` of action `created`, or
 * GitLab's `Note Hook` of a note on a merge request, neither a system note nor an edit.
 */
export function commandOf(eventType: string, payload: JsonObject, commands: RouteCommands): PullCommand | undefined {
  if (eventType === NOTE_HOOK) return noteCommandOf(payload, commands)
  if (!COMMAND_EVENTS.includes(eventType) || payload['action'] !== 'created') return undefined
  const comment = objectAt(payload, 'comment')
  const body = comment?.['body']
  if (comment === undefined || typeof body !== 'string') return undefined
  const name = commandIn(body, commands.bot)
  if (name === undefined) return undefined
  const issue = objectAt(payload, 'issue')
  // An issue's comment is a pull request's only when the issue is one.
  const number = eventType === 'issue_comment' ? (issue?.['pull_request'] === undefined ? undefined : issue['number']) : objectAt(payload, 'pull_request')?.['number']
  const id = comment['id']
  if (typeof number !== 'number' || typeof id !== 'number') return undefined
  const login = objectAt(comment, 'user')?.['login']
  const association = typeof comment['author_association'] === 'string' ? comment['author_association'] : 'NONE'
  return { name, commentId: id, on: eventType === 'issue_comment' ? 'issue' : 'review', author: typeof login === 'string' ? login : '', association, number }
}

/** GitLab: a note on a merge request (`object_attributes`, the note; `merge_request`, what it is on; `user`, who wrote it). */
function noteCommandOf(payload: JsonObject, commands: RouteCommands): PullCommand | undefined {
  const note = objectAt(payload, 'object_attributes')
  if (note === undefined || note['noteable_type'] !== 'MergeRequest' || note['system'] === true) return undefined
  // Since GitLab 16.11 an edited note sends the hook again (`action: update`): a command runs once, as written.
  const action = note['action']
  if (action !== undefined && action !== 'create') return undefined
  const body = note['note']
  const name = typeof body === 'string' ? commandIn(body, commands.bot) : undefined
  const number = objectAt(payload, 'merge_request')?.['iid']
  const id = note['id']
  if (name === undefined || typeof number !== 'number' || typeof id !== 'number') return undefined
  const user = objectAt(payload, 'user')
  const login = user?.['username']
  const userId = user?.['id'] ?? note['author_id']
  return {
    name, commentId: id, on: note['type'] === 'DiffNote' ? 'review' : 'issue', author: typeof login === 'string' ? login : '',
    ...(typeof userId === 'number' ? { authorId: userId } : {}), association: undefined, number,
  }
}

/**
 * The event as it is stored for the command's job: naming its pull request as the code host's pull-request event
 * does (GitHub's `number`; GitLab's `object_attributes.iid`, which a note has none of), so the route's concurrency
 * key and `deliver_extra` (`{number}`, `{object_attributes.iid}`) put the command in the pull request's group and
 * comments.
 */
export function namingPullRequest(eventType: string, payload: JsonObject, number: number): JsonObject {
  if (eventType !== NOTE_HOOK) return { ...payload, number }
  return { ...payload, object_attributes: { ...objectAt(payload, 'object_attributes'), iid: number } }
}

/**
 * The association a permission stands for, for a code host whose events carry none (GitLab): `admin` (GitLab's
 * Owner) `OWNER`, `maintain` (Maintainer) `MEMBER`, `write` (Developer) `COLLABORATOR`, anything less `NONE`. The
 * route's `trusted` list then reads as on GitHub: the default trusts Developers and up.
 */
export function associationOf(permission: RepoPermission): string {
  return ASSOCIATION_OF[permission]
}

const ASSOCIATION_OF: Readonly<Record<RepoPermission, string>> = Object.freeze({
  admin: 'OWNER', maintain: 'MEMBER', write: 'COLLABORATOR', triage: 'NONE', read: 'NONE', none: 'NONE',
})

/** The permissions `ask_permission` trusts: those that may write to the repository. */
const WRITERS: ReadonlySet<RepoPermission> = new Set(['admin', 'maintain', 'write'])

/**
 * Whether the route trusts a commenter of `association` (the event's, or {@link associationOf} the code host's
 * word) or, with `ask_permission`, of `permission` (when the code host was asked).
 */
export function trusts(commands: RouteCommands, association: string, permission: RepoPermission | undefined): boolean {
  return commands.trusted.includes(association) || (commands.askPermission && permission !== undefined && WRITERS.has(permission))
}

/** Whether the pull request's description asks the bot to leave it alone (`@bot ignore` on a line of its own). */
export function ignoredByDescription(body: string, bot: string): boolean {
  const name = bot.replace(/\[bot\]$/, '').toLowerCase()
  return body.split('\n').some((line) => {
    const words = line.trim().toLowerCase().replace(/\s+/g, ' ')
    return words === `@${name} ignore` || words === `@${name}[bot] ignore`
  })
}

function objectAt(payload: JsonObject, key: string): JsonObject | undefined {
  const value: JsonValue | undefined = payload[key]
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : undefined
}
