/**
 * The fake GitLab's state, in memory: users and their tokens, projects, merge requests with their diff versions,
 * notes and discussions, and commit statuses. The routes (one file per API area) read and change it; a test reads
 * it through the server's helpers.
 */

/** A user a token stands for. `scopes` as a token's: `api` writes, `read_api` only reads. */
export interface FakeGitlabUser {
  readonly id: number
  readonly username: string
  readonly scopes: readonly string[]
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
  readonly source_branch: string
  readonly target_branch: string
  state: 'opened' | 'closed' | 'merged'
  /** Newest last (GitLab lists them newest first). */
  readonly versions: FakeVersion[]
  /** Plain notes (system ones too), in creation order. */
  readonly notes: FakeGitlabNote[]
  readonly discussions: FakeGitlabDiscussion[]
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
}

/** The whole state. */
export interface FakeGitlabState {
  readonly users: Map<string, FakeGitlabUser>
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
      const project: FakeProject = { id: projects.size + 1, path_with_namespace: path, mergeRequests: new Map(), statuses: [], commits: new Map() }
      projects.set(project.id, project)
      return project
    },
  }
}
