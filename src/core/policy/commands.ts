/**
 * The commands a pull request's comment may give the bot: `@<bot> review` (what changed since the last review),
 * `full review`, `pause`, `resume`, `why`, `help` and `config`, one per comment, at the start of a line. Who may
 * give them is the route's `policy.commands.trusted` (the comment author's association on the repository).
 */
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

/** The events a command comes in: a comment on the pull request's conversation, or on its diff. */
export const COMMAND_EVENTS: readonly string[] = Object.freeze(['issue_comment', 'pull_request_review_comment'])

/** A command found in a comment, with who wrote it and where. */
export interface PullCommand {
  readonly name: CommandName
  /** The comment's id (a reaction acknowledges it). */
  readonly commentId: number
  /** `issue_comment` or `pull_request_review_comment`: where the reaction goes. */
  readonly on: 'issue' | 'review'
  readonly author: string
  /** `author_association` as the event says it (`OWNER`, `MEMBER`, `COLLABORATOR`, `NONE`...). */
  readonly association: string
  /** The pull request's number. */
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

/** The command a comment event carries, or undefined when it is not a new comment on a pull request addressed to the bot. */
export function commandOf(eventType: string, payload: JsonObject, commands: RouteCommands): PullCommand | undefined {
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
  const user = comment['user']
  const author = typeof user === 'object' && user !== null && !Array.isArray(user) && typeof user['login'] === 'string' ? user['login'] : ''
  const association = typeof comment['author_association'] === 'string' ? comment['author_association'] : 'NONE'
  return { name, commentId: id, on: eventType === 'issue_comment' ? 'issue' : 'review', author, association, number }
}

/** Whether the command's author is trusted by the event's own word (their association). */
export function trustedByAssociation(command: PullCommand, commands: RouteCommands): boolean {
  return commands.trusted.includes(command.association)
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
