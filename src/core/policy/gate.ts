/**
 * The policy's word on one try of a job, before its agent runs: a command is answered (`help`, `why`, `config`)
 * or turned into a review (`review`, `full review`, `resume`); an event's review is skipped when its pull request
 * is paused, ignored by its description, or filtered out by the repository's policy file (read from the base
 * branch), each said once on the pull request with the rule that decided; a review the repository's longer
 * debounce has not yet let through waits in the queue; otherwise the review runs with the path-scoped
 * instructions, the settings and the budgets the repository chose. What the gateway does not own (the pull request,
 * the file) it reads through the target's {@link PullRequestHost}.
 */
import type { PullRequestHost } from '../code-host-types.js'
import { messageOf } from '../errors.js'
import type { JobRecord } from '../jobs/lifecycle/job-record.js'
import type { NoteStore } from '../jobs/lifecycle/notes.js'
import type { JobOutcome } from '../jobs/lifecycle/state-backend.js'
import type { JobsView } from '../jobs/lifecycle/jobs-view.js'
import type { Clock, JsonObject, Logger, Route, RouteCommands, RoutePolicy } from '../types.js'
import { groupWait } from '../jobs/lifecycle/groups.js'
import { groupOf } from '../routes/concurrency.js'
import { commandOf, ignoredByDescription, type PullCommand } from './commands.js'
import { skipRuleOf } from './filters.js'
import { instructionsFor } from './instructions.js'
import type { PolicyBudgets, PolicySettings } from './policy-file.js'
import { createPolicyReader, type PolicyReader } from './policy-reader.js'
import { noteNotice, pauseOf } from './pull-notes.js'
import { configReply, failedNotice, helpReply, invalidPolicyNotice, pauseNotice, POLICY_REASON, skipNotice, whyReply, WHY_JOBS } from './replies.js'

/** What the gate is given. */
export interface PolicyGateParts {
  /** The state store's notes (pauses, notices shown); without them nothing is paused and notices may repeat. */
  readonly notes: NoteStore | undefined
  /** The jobs view, for `why`. */
  readonly jobs: JobsView | undefined
  readonly log: Logger
  /** The policy files' reader (one per gateway: its cache is the gateway's). */
  readonly reader?: PolicyReader | undefined
  /** The gateway's clock (the repository's debounce is measured on it); the machine's by default. */
  readonly clock?: Clock | undefined
}

/** What the prompt and the delivery of a review get from the policy. */
export interface PolicyRun {
  readonly kind: 'run'
  /** `{review.instructions}`: the path-scoped instructions for the files the pull request changes. */
  readonly instructions: string
  /** `deliver_extra` keys the repository chose (`fail_on`, `max_inline_comments`, `incremental`). */
  readonly extra: Readonly<Record<string, string>>
  /** The budgets the repository set (`budgets:`), each tightening the gateway's when the run reserves its room. */
  readonly budgets: PolicyBudgets
}

/** The gate's word: run the review as {@link PolicyRun} says, or end the job now with `outcome`. */
export type PolicyDecision = PolicyRun | { readonly kind: 'end'; readonly outcome: JobOutcome }

/** The policy of a route's jobs. */
export interface PolicyGate {
  /** Before the agent runs (a job's first stage): what the policy says of this job. */
  beforeRun(job: JobRecord, payload: JsonObject, route: Route, host: PullRequestHost): Promise<PolicyDecision>
  /** The settings the repository chose, for a delivery tried again (its first try had them from {@link beforeRun}). */
  settingsOf(job: JobRecord, payload: JsonObject, route: Route, host: PullRequestHost): Promise<Readonly<Record<string, string>>>
  /** After a try: a job that failed for good is said once on its pull request. */
  afterOutcome(job: JobRecord, payload: JsonObject, route: Route, host: PullRequestHost, outcome: JobOutcome): Promise<void>
}

/** The policy gate over `parts`. */
export function createPolicyGate(parts: PolicyGateParts): PolicyGate {
  const reader = parts.reader ?? createPolicyReader()
  const { notes, log } = parts
  const clock = parts.clock ?? Date.now

  /**
   * Posts `text` as the route's notice unless the notice of `topic` (a rule, a pause, a base commit's policy) is
   * the one already shown: a push after push that the same rule skips says nothing more.
   */
  async function noticeOnce(route: Route, host: PullRequestHost, topic: string, text: string): Promise<void> {
    try {
      if (notes !== undefined && !(await noteNotice(notes, route.name, host.repo, host.number, topic))) return
      await host.notice(text)
    } catch (err) {
      // A notice is a courtesy: the job's outcome is decided already and stands.
      log.warn('policy notice not posted', { route: route.name, repo: host.repo, number: host.number, reason: messageOf(err) })
    }
  }

  const skipped = (reason: string): PolicyDecision => ({ kind: 'end', outcome: { kind: 'skipped', reason: `${POLICY_REASON}${reason}` } })

  /** A command's answer, for a route that takes commands (`commands`: its policy's). */
  async function answerCommand(command: PullCommand, job: JobRecord, payload: JsonObject, route: Route, policy: RoutePolicy, commands: RouteCommands, host: PullRequestHost): Promise<PolicyDecision | undefined> {
    const { bot } = commands
    switch (command.name) {
      case 'help':
        return done(await host.reply(helpReply(commands)))
      case 'config': {
        const facts = await host.facts()
        return done(await host.reply(configReply(await reader.read(host, facts.repo, facts.baseSha, policy))))
      }
      case 'why': {
        const jobs = await recentJobs(job, payload, route)
        const paused = notes === undefined ? undefined : await pauseOf(notes, host.repo, host.number)
        return done(await host.reply(whyReply(jobs, bot, paused)))
      }
      case 'pause':
        // The pause itself was written when the command came (commands never wait behind reviews).
        return skipped(`paused by @${command.author} with a command`)
      default:
        return undefined
    }
  }

  /**
   * The pull request's jobs (this route's), newest first, this command's own job left out: those of its page's link,
   * or, when the event named no link the gateway keeps (a GitLab served over http), those of its concurrency group.
   */
  async function recentJobs(job: JobRecord, payload: JsonObject, route: Route): Promise<JobRecord[]> {
    const group = job.link === undefined ? groupOf(route.name, route.concurrency, payload)?.key : undefined
    if (parts.jobs === undefined || (job.link === undefined && group === undefined)) return []
    const all = await parts.jobs.list({ route: route.name, limit: 500 })
    const same = (j: JobRecord) => (job.link !== undefined ? j.link === job.link : j.group === group)
    return all.filter((j) => same(j) && j.id !== job.id).slice(0, WHY_JOBS)
  }

  return {
    async beforeRun(job, payload, route, host) {
      const policy = route.policy
      if (policy === undefined) return { kind: 'run', instructions: '', extra: {}, budgets: {} }
      const commands = policy.commands
      const command = commands === undefined ? undefined : commandOf(job.event, payload, commands)
      if (command !== undefined && commands !== undefined) {
        const answered = await answerCommand(command, job, payload, route, policy, commands, host)
        if (answered !== undefined) return answered
      }
      // A trusted commenter's `review`, `full review` or `resume` asks for this review: no filter or pause stops it.
      const asked = command !== undefined
      const facts = await host.facts()
      const read = await reader.read(host, facts.repo, facts.baseSha, policy)
      // Before anything is decided of the pull request: the newest event of its group is the one judged.
      const debounced = debounceOf(job, route, read.policy.settings, clock())
      if (debounced !== undefined) return debounced
      if (!asked) {
        const pause = notes === undefined ? undefined : await pauseOf(notes, host.repo, host.number)
        if (pause !== undefined) {
          await noticeOnce(route, host, `pause by ${pause.by}`, pauseNotice(policy.commands?.bot ?? 'hookpilot', pause.by))
          return skipped(`the pull request is paused (by @${pause.by})`)
        }
        if (policy.commands !== undefined && ignoredByDescription(facts.body, policy.commands.bot)) {
          await noticeOnce(route, host, 'ignore', skipNotice('ignore', `the description says \`@${policy.commands.bot} ignore\``))
          return skipped(`the description says @${policy.commands.bot} ignore`)
        }
      }
      if (read.issues.length > 0) await noticeOnce(route, host, `invalid policy at ${facts.baseSha}`, invalidPolicyNotice(read))
      let paths: Promise<readonly string[]> | undefined
      const changedPaths = () => (paths ??= host.changedPaths())
      if (!asked) {
        const rule = await skipRuleOf(read.policy.filters, facts, changedPaths)
        if (rule !== undefined) {
          await noticeOnce(route, host, rule.rule, skipNotice(rule.rule, rule.reason))
          return skipped(`${rule.rule}: ${rule.reason}`)
        }
      }
      // A review runs: the next skip, pause or problem is news again.
      if (notes !== undefined && read.issues.length === 0) await noteNotice(notes, route.name, host.repo, host.number, undefined)
      const instructions = read.policy.instructions === undefined ? '' : instructionsFor(read.policy.instructions, await changedPaths())
      const extra = settingsExtra(read.policy.settings)
      return { kind: 'run', instructions, extra: command?.name === 'full review' ? { ...extra, incremental: 'false' } : extra, budgets: read.policy.budgets ?? {} }
    },

    async settingsOf(job, payload, route, host) {
      if (route.policy === undefined) return {}
      const facts = await host.facts()
      const read = await reader.read(host, facts.repo, facts.baseSha, route.policy)
      const command = route.policy.commands === undefined ? undefined : commandOf(job.event, payload, route.policy.commands)
      const extra = settingsExtra(read.policy.settings)
      return command?.name === 'full review' ? { ...extra, incremental: 'false' } : extra
    },

    async afterOutcome(job, payload, route, host, outcome) {
      if (route.policy === undefined || outcome.kind !== 'failed') return
      await noticeOnce(route, host, 'failed', failedNotice())
    },
  }
}

/**
 * The repository's `settings.debounce_seconds`, where it is longer than the route's `concurrency.debounce_seconds`:
 * the job waits in the queue (outcome `wait`: its try and run not counted, a newer event of its group supersedes it
 * meanwhile) until no newer event of its pull request came for that long, within the route's `max_wait_seconds`
 * after its burst began, as the route's own debounce does (groups.ts, `groupWait`). Undefined: it runs now.
 */
function debounceOf(job: JobRecord, route: Route, settings: PolicySettings | undefined, now: number): PolicyDecision | undefined {
  const seconds = settings?.debounce_seconds
  const concurrency = route.concurrency
  // Without a concurrency group there is nothing to debounce: no newer event would replace this one.
  if (seconds === undefined || concurrency === undefined || seconds * 1000 <= concurrency.debounceMs) return undefined
  const at = groupWait({ debounceMs: seconds * 1000, maxWaitMs: concurrency.maxWaitMs }, job.burstAt ?? job.receivedAt, job.receivedAt)
  if (at <= now) return undefined
  return { kind: 'end', outcome: { kind: 'wait', at, reason: `${POLICY_REASON}waiting for the repository's debounce (settings.debounce_seconds: ${seconds})` } }
}

/** The repository's settings as the `deliver_extra` keys the review target reads. */
function settingsExtra(settings: PolicySettings | undefined): Record<string, string> {
  const extra: Record<string, string> = {}
  if (settings?.fail_on !== undefined) extra['fail_on'] = settings.fail_on
  if (settings?.max_inline_comments !== undefined) extra['max_inline_comments'] = String(settings.max_inline_comments)
  if (settings?.incremental !== undefined) extra['incremental'] = String(settings.incremental)
  return extra
}

function done(url: string): PolicyDecision {
  return { kind: 'end', outcome: { kind: 'done', url } }
}
