/**
 * The fake GitLab's state, in memory: users and their tokens, projects (their members and repository files),
 * merge requests with their diff versions, notes, discussions and award emoji, and commit statuses. The routes
 * (one file per API area) read and change it; a test reads it through the server's helpers.
 */

/** A user: one a token stands for (`scopes` as a token's: `api` writes, `read_api` only reads), or one without a token. */
export interface FakeGitlabUser {
  readonly id: number
  readonly username: string
  readonly scopes: readonly string[]
  /** A bot account (GitLab's user `bot` flag); by default, a username with `_bot` (a project access token's). */
  readonly bot?: boolean | undefined
}

/** A member of a project: their role (`access_level`: 10 Guest, 20 Reporter, 30 Developer, 40 Maintainer, 50 Owner). */
export interface FakeMember {
  readonly user: FakeGitlabUser
  readonly accessLevel: number
  /** `active`, or `blocked` and the like, which GitLab also lists. */
  readonly state: string
}

/** An award emoji on a note. */
export interface FakeAward {
  readonly id: number
  readonly noteId: number
  readonly name: string
  readonly user: FakeGitlabUser
}

/** One changed file of a version, as GitLab lists it. */
export interface FakeGitlabDiff {
  readonly old_path: string
  readonly new_path: string
  readonly new_file?: boolean
  readonly renamed_file?: boolean
  readonly deleted_file?: boolean
  /** Hunks from the first `@@` (empty for a collapsed or too large file). */
  readonly diff: string
  readonly collapsed?: boolean
  readonly too_large?: boolean
}

/** A diff version of a merge request: its SHAs and files. */
export interface FakeVersion {
  readonly id: number
  readonly head_commit_sha: string
  readonly base_commit_sha: string
  readonly start_commit_sha: string
  readonly created_at: string
  readonly diffs: readonly FakeGitlabDiff[]
}

/** A note (a plain one, or one of a discussion). */
export interface FakeGitlabNote {
  readonly id: number
  body: string
  readonly author: FakeGitlabUser
  readonly system: boolean
  readonly type: null | 'DiscussionNote' | 'DiffNote'
  readonly position?: Record<string, unknown> | undefined
  resolved: boolean
  readonly resolvable: boolean
  readonly created_at: string
  updated_at: string
  /** How many times it was edited. */
  edits: number
}

/** A discussion: its id (40 hex) and notes. */
export interface FakeGitlabDiscussion {
  readonly id: string
  readonly individual_note: boolean
  readonly notes: FakeGitlabNote[]
}

/** A merge request. */
export interface FakeMergeRequest {
  readonly iid: number
  readonly projectId: number
  /** The project its commits come from: itself, or a fork's. */
  sourceProjectId: number
  source_branch: string
  target_branch: string
  state: 'opened' | 'closed' | 'merged'
  title: string
  description: string
  draft: boolean
  labels: string[]
  author: FakeGitlabUser
  /** Newest last (GitLab lists them newest first). */
  readonly versions: FakeVersion[]
  /** Plain notes (system ones too), in creation order. */
  readonly notes: FakeGitlabNote[]
  readonly discussions: FakeGitlabDiscussion[]
  readonly awards: FakeAward[]
}

/** A commit status, as its latest write left it. */
export interface FakeGitlabStatus {
  readonly id: number
  readonly sha: string
  readonly name: string
  status: string
  target_url: string | null
  description: string | null
  readonly ref: string | null
  readonly author: string
  /** Every state it was given, in order. */
  readonly history: string[]
}

/** A project. */
export interface FakeProject {
  readonly id: number
  readonly path_with_namespace: string
  readonly mergeRequests: Map<number, FakeMergeRequest>
  readonly statuses: FakeGitlabStatus[]
  /** The repository's commit graph: each commit's parents (what the compare API walks). */
  readonly commits: Map<string, readonly string[]>
  /** The repository's files at a commit: `files.get(sha).get(path)`. */
  readonly files: Map<string, Map<string, string>>
  /** Its members, by user id (direct or inherited: `members/all` lists both). */
  readonly members: Map<number, FakeMember>
}

/** The whole state. */
export interface FakeGitlabState {
  /** The users tokens stand for, by token. */
  readonly users: Map<string, FakeGitlabUser>
  /** Every user, with a token or not, by id. */
  readonly accounts: Map<number, FakeGitlabUser>
  readonly projects: Map<number, FakeProject>
  /** Ids for notes, versions, statuses and users: one counter, as they need only be unique. */
  nextId(): number
  /** The project a path segment names: a numeric id, or a (decoded) `group/project` path. */
  project(idOrPath: string): FakeProject | undefined
  /** Declares a project (by path), or returns it. */
  ensureProject(path: string): FakeProject
  /** `ISO time` now, the fake's clock. */
  now(): string
}

/** A fresh state. */
export function createFakeGitlabState(): FakeGitlabState {
  let id = 1000
  const projects = new Map<number, FakeProject>()
  return {
    users: new Map(),
    accounts: new Map(),
    projects,
    nextId: () => ++id,
    now: () => new Date().toISOString(),
    project(idOrPath) {
      if (/^\d+$/.test(idOrPath)) return projects.get(Number(idOrPath))
      return [...projects.values()].find((p) => p.path_with_namespace === idOrPath)
    },
    ensureProject(path) {
      const found = [...projects.values()].find((p) => p.path_with_namespace === path)
      if (found !== undefined) return found
      const project: FakeProject = { id: projects.size + 1, path_with_namespace: path, mergeRequests: new Map(), statuses: [], commits: new Map(), files: new Map(), members: new Map() }
      projects.set(project.id, project)
      return project
    },
  }
}
