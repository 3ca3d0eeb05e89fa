/**
 * What the gateway itself asks a code host about one pull request, beyond posting an answer: its facts now, a
 * file at a commit (a repository's policy file, from the base branch), a reply, a notice, a reaction, a
 * commenter's permission. A delivery target that posts to a code host offers it (`DeliveryTarget.pullRequest`);
 * the policy layer (src/core/policy/) is written against this interface only, so every code host can serve it
 * (GitHub's pull requests, GitLab's merge requests, in GitHub's words).
 */

import type { JsonObject } from './context-types.js'

/** A pull request's facts, as the code host reports them when asked. */
export interface PullFacts {
  /** `owner/name`. */
  readonly repo: string
  readonly number: number
  readonly title: string
  /** The description; `@bot ignore` there skips its reviews. */
  readonly body: string
  readonly draft: boolean
  /** The author's login. */
  readonly author: string
  /** True when the author is a bot account (GitHub's `user.type` is `Bot`; GitLab's user `bot` flag). */
  readonly authorIsBot: boolean
  readonly labels: readonly string[]
  /**
   * The branch it targets, and that branch's commit (GitHub's `base.sha`; GitLab's `diff_refs.start_sha`, the
   * target branch's tip when the merge request's diff was last computed): the policy file is read there.
   */
  readonly baseRef: string
  readonly baseSha: string
  /** The branch it comes from (a fork's branch name for a fork's pull request). */
  readonly headRef: string
  readonly headSha: string
}

/** A file read at a commit: its text, none there, or larger than the reader takes (its size). */
export type HostFile =
  | { readonly kind: 'found'; readonly text: string }
  | { readonly kind: 'missing' }
  | { readonly kind: 'too_large'; readonly bytes: number }

/** A comment's acknowledgement: GitHub's reaction contents (GitLab's award emoji of the same look). */
export type Reaction = 'eyes' | '+1' | '-1' | 'confused' | 'rocket'

/**
 * Where a comment is: the pull request's conversation (`issue`) or its diff (`review`). GitLab reacts to any note
 * of the merge request alike, by its id.
 */
export interface CommentRef {
  readonly id: number
  readonly on: 'issue' | 'review'
}

/**
 * A commenter's permission on the repository, as GitHub names it. GitLab's roles on the project stand for them:
 * Owner `admin`, Maintainer `maintain`, Developer `write`, Reporter `triage`, Guest, Planner and Minimal Access
 * `read`; not a member `none`.
 */
export type RepoPermission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none'

/** Who wrote a comment: their login and, where the event names it, their numeric id (GitLab's members API asks by id). */
export interface Commenter {
  readonly login: string
  readonly id?: number | undefined
}

/** One pull request on a code host, as the gateway (not the agent) acts on it. Each call may throw. */
export interface PullRequestHost {
  /**
   * The repository as the route names it (`deliver_extra`: GitHub's `owner/name`, a GitLab project's path or id):
   * what the gateway keeps of a pull request (its pause, its notice) is kept under this and {@link number},
   * whichever event of it came.
   */
  readonly repo: string
  /** The pull request's number as the route names it (a merge request's iid). */
  readonly number: number
  /** The pull request now. */
  facts(): Promise<PullFacts>
  /** The paths its head changes. */
  changedPaths(): Promise<readonly string[]>
  /** A file of the repository at commit `ref`, read through the API (never a checkout), up to `maxBytes`. */
  readFile(path: string, ref: string, maxBytes: number): Promise<HostFile>
  /** Posts a comment on the pull request; its URL. */
  reply(body: string): Promise<string>
  /** Writes the route's one notice on the pull request (created once, edited after); its URL. */
  notice(body: string): Promise<string>
  /** Reacts to a comment. */
  react(comment: CommentRef, reaction: Reaction): Promise<void>
  /**
   * A commenter's permission on the repository (GitLab: their role on the project). The gateway's own account is
   * `none`: what it wrote (a review an agent wrote) never commands it.
   */
  permission(commenter: Commenter): Promise<RepoPermission>
}

/** Where a pull request is, as a target reads it from a job: the route's rendered `deliver_extra` and the payload. */
export interface PullRequestWhere {
  readonly route: string
  readonly extra: Readonly<Record<string, string>>
  readonly payload: JsonObject
  readonly signal: AbortSignal
}
