/**
 * Pull-request commands as they come in, before anything is stored: a comment that is not a command to the bot,
 * or a command from a commenter the route does not trust, is ignored (it runs nothing and spends nothing); a
 * trusted command is stored like any event (de-duplicated, in the pull request's concurrency group) and then
 * acknowledged at once, with a reaction, and a `pause` or `resume` takes effect at once: a command never waits
 * for an agent slot behind the reviews. One intake for every code host: what differs (where the command is in the
 * event, whether the event says who its author is) is commands.ts's, and what is asked of the code host goes
 * through the route's target's `PullRequestHost`.
 */
import type { RepoPermission } from '../code-host-types.js'
import type { PullCommand } from './commands.js'
import { associationOf, commandOf, COMMAND_EVENTS, namingPullRequest, trusts } from './commands.js'
import { messageOf } from '../errors.js'
import type { NoteStore } from '../jobs/lifecycle/notes.js'
import type { Clock, DeliveryTarget, JsonObject, Logger, Route, WebhookEvent } from '../types.js'
import { pullRequestOf } from './host-of.js'
import { setPause } from './pull-notes.js'
import { timeoutSignal } from '../../util/timeout-signal.js'

/**
 * How long the intake waits for the code host, all its calls for one event together (a permission, a reaction,
 * and GitLab's own user): the sender's answer, and the command's acknowledgement, must not wait longer (5 s).
 */
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
  /**
   * `joinsGroup`: false for a command that only answers (`help`, `why`, `config`), which must not displace a queued
   * review. `hostBudget`: aborted when the intake's time with the code host for this event is up (the check's
   * calls and the acknowledgement's share it).
   */
  | { readonly kind: 'command'; readonly command: PullCommand; readonly payload: JsonObject; readonly joinsGroup: boolean; readonly hostBudget: AbortSignal }

/** Pull-request commands at intake. */
export interface CommandIntake {
  /** Whether `event` on `route` is a command to take; asks the code host only for a commenter's permission. */
  check(event: WebhookEvent, route: Route): Promise<CommandCheck>
  /**
   * After the command's job is stored (not for a duplicate): its pause or resume, and the reaction, within what is
   * left of the check's `hostBudget`.
   */
  acknowledge(route: Route, command: PullCommand, payload: JsonObject, hostBudget: AbortSignal): Promise<void>
}

/** The intake over `parts`. */
export function createCommandIntake(parts: CommandIntakeParts): CommandIntake {
  const { log } = parts

  return {
    async check(event, route) {
      const commands = route.policy?.commands
      if (commands === undefined || !COMMAND_EVENTS.includes(event.type)) return { kind: 'pass' }
      const command = commandOf(event.type, event.payload, commands)
      if (command === undefined) return { kind: 'ignored', reason: `not a command to @${commands.bot} on a pull request` }
      const payload = namingPullRequest(event.type, event.payload, command.number)
      const hostBudget = timeoutSignal(parts.signal, COMMAND_HOST_TIMEOUT_MS)
      const taken = { kind: 'command', command, payload, joinsGroup: GROUP_COMMANDS.has(command.name), hostBudget } as const
      // The code host is asked when the event says nothing of the author (GitLab's), or when the route asks it
      // about one the event's word does not trust.
      let association = command.association
      let permission: RepoPermission | undefined
      if (association === undefined || (!commands.trusted.includes(association) && commands.askPermission)) {
        permission = await permissionOf(route, command, payload, hostBudget)
        association ??= associationOf(permission)
      }
      if (trusts(commands, association, permission)) return taken
      const said = command.association === undefined ? `author association ${association}, from their role on the project` : `author association ${association}`
      return { kind: 'ignored', reason: `the commenter may not command the bot (${said})` }
    },

    async acknowledge(route, command, payload, hostBudget) {
      const host = pullRequestOf(parts.targets, route, payload, hostBudget)
      if (host === undefined) return
      try {
        if (parts.notes !== undefined && (command.name === 'pause' || command.name === 'resume')) {
          await setPause(parts.notes, host.repo, host.number, command.name === 'pause' ? { by: command.author, at: parts.clock() } : undefined)
        }
        await host.react({ id: command.commentId, on: command.on }, 'eyes')
      } catch (err) {
        log.warn('command not acknowledged', { route: route.name, command: command.name, reason: messageOf(err) })
      }
    },
  }

  /** The code host's word on the command's author; `none` when it names no pull request or cannot be asked. */
  async function permissionOf(route: Route, command: PullCommand, payload: JsonObject, hostBudget: AbortSignal): Promise<RepoPermission> {
    const host = pullRequestOf(parts.targets, route, payload, hostBudget)
    if (host === undefined) return 'none'
    try {
      return await host.permission({ login: command.author, id: command.authorId })
    } catch (err) {
      log.warn("command refused: the commenter's permission could not be read", { route: route.name, reason: messageOf(err) })
      return 'none'
    }
  }
}
