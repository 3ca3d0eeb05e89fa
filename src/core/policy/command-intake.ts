/**
 * Pull-request commands as they come in, before anything is stored: a comment that is not a command to the bot,
 * or a command from a commenter the route does not trust, is ignored (it runs nothing and spends nothing); a
 * trusted command is stored like any event (de-duplicated, in the pull request's concurrency group) and then
 * acknowledged at once, with a reaction, and a `pause` or `resume` takes effect at once: a command never waits
 * for an agent slot behind the reviews.
 */
import type { PullCommand } from './commands.js'
import { commandOf, COMMAND_EVENTS, trustedByAssociation } from './commands.js'
import { messageOf } from '../errors.js'
import type { NoteStore } from '../jobs/lifecycle/notes.js'
import type { Clock, DeliveryTarget, JsonObject, Logger, Route, WebhookEvent } from '../types.js'
import { pullRequestOf } from './host-of.js'
import { setPause } from './pull-notes.js'

/** How long the intake waits for the code host (a permission, a reaction): the sender's answer must not wait longer. */
export const COMMAND_HOST_TIMEOUT_MS = 4000

/**
 * The commands that join the pull request's concurrency group: those that review (a `review` replaces the pushes
 * queued before it, as a newer push would) or stop reviews. `help`, `why` and `config` only answer, and run on
 * their own: in the group, they would supersede a review waiting for its debounce.
 */
const GROUP_COMMANDS: ReadonlySet<string> = new Set(['review', 'full review', 'pause', 'resume'])

/** What the intake is given. */
export interface CommandIntakeParts {
  readonly targets: ReadonlyMap<string, DeliveryTarget>
  /** Where pauses are kept; without it, `pause` and `resume` change nothing. */
  readonly notes: NoteStore | undefined
  readonly log: Logger
  readonly clock: Clock
  /** Aborted when the gateway closes. */
  readonly signal: AbortSignal
}

/** What the intake says of an event: not its business, ignored (why), or a trusted command (with its payload to store). */
export type CommandCheck =
  | { readonly kind: 'pass' }
  | { readonly kind: 'ignored'; readonly reason: string }
  /** `joinsGroup`: false for a command that only answers (`help`, `why`, `config`), which must not displace a queued review. */
  | { readonly kind: 'command'; readonly command: PullCommand; readonly payload: JsonObject; readonly joinsGroup: boolean }

/** Pull-request commands at intake. */
export interface CommandIntake {
  /** Whether `event` on `route` is a command to take; asks the code host only for a commenter's permission. */
  check(event: WebhookEvent, route: Route): Promise<CommandCheck>
  /** After the command's job is stored (not for a duplicate): its pause or resume, and the reaction. */
  acknowledge(route: Route, command: PullCommand, payload: JsonObject): Promise<void>
}

/** The intake over `parts`. */
export function createCommandIntake(parts: CommandIntakeParts): CommandIntake {
  const { log } = parts
  const bounded = () => AbortSignal.any([parts.signal, AbortSignal.timeout(COMMAND_HOST_TIMEOUT_MS)])

  return {
    async check(event, route) {
      const commands = route.policy?.commands
      if (commands === undefined || !COMMAND_EVENTS.includes(event.type)) return { kind: 'pass' }
      const command = commandOf(event.type, event.payload, commands)
      if (command === undefined) return { kind: 'ignored', reason: `not a command to @${commands.bot} on a pull request` }
      // The stored payload names the pull request as a pull_request event does (`number`), so the route's
      // concurrency key and deliver_extra (`{number}`) put the command in the pull request's group and comments.
      const payload: JsonObject = { ...event.payload, number: command.number }
      const taken = { kind: 'command', command, payload, joinsGroup: GROUP_COMMANDS.has(command.name) } as const
      if (trustedByAssociation(command, commands)) return taken
      if (commands.askPermission) {
        const host = pullRequestOf(parts.targets, route, payload, bounded())
        try {
          const permission = host === undefined ? 'none' : await host.permission(command.author)
          if (permission === 'admin' || permission === 'maintain' || permission === 'write') return taken
        } catch (err) {
          log.warn("command refused: the commenter's permission could not be read", { route: route.name, reason: messageOf(err) })
        }
      }
      return { kind: 'ignored', reason: `the commenter may not command the bot (author association ${command.association})` }
    },

    async acknowledge(route, command, payload) {
      const host = pullRequestOf(parts.targets, route, payload, bounded())
      const repo = host === undefined ? undefined : (payload['repository'] as { full_name?: unknown } | undefined)?.full_name
      try {
        if (parts.notes !== undefined && typeof repo === 'string' && (command.name === 'pause' || command.name === 'resume')) {
          await setPause(parts.notes, repo, command.number, command.name === 'pause' ? { by: command.author, at: parts.clock() } : undefined)
        }
        await host?.react({ id: command.commentId, on: command.on }, 'eyes')
      } catch (err) {
        log.warn('command not acknowledged', { route: route.name, command: command.name, reason: messageOf(err) })
      }
    },
  }
}
