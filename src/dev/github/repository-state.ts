/**
 * What the fake GitHub keeps of a repository beyond its pull requests' heads: files at commits, pull requests'
 * details, reactions to comments, collaborators' permissions (served by repository.ts).
 */

/** A pull request's details a test sets; each has GitHub's shape once served. */
export interface FakePullDetails {
  title?: string
  body?: string
  draft?: boolean
  author?: string
  /** Whether the author is a bot (`user.type: Bot`); by default, a login ending in `[bot]`. */
  authorIsBot?: boolean
  labels?: string[]
  baseRef?: string
  baseSha?: string
  headRef?: string
  /** The repository the head comes from (a fork's `owner/name`); the pull request's own by default. */
  headRepo?: string
}

/** A reaction written through the API. */
export interface FakeReaction {
  readonly repo: string
  /** `issue` for a conversation's comment, `review` for a diff's. */
  readonly on: 'issue' | 'review'
  readonly commentId: number
  readonly content: string
  readonly login: string
}

/** The repository state the fake keeps beside its pull requests. */
export interface FakeRepositoryState {
  /** Sets (or, with `undefined`, removes) a file at a commit. */
  setContent(repo: string, ref: string, path: string, text: string | undefined): void
  content(repo: string, ref: string, path: string): string | undefined
  /** Merges `details` into a pull request's. */
  setPullDetails(repo: string, number: number, details: FakePullDetails): void
  pullDetails(repo: string, number: number): FakePullDetails
  setPermission(repo: string, login: string, permission: string): void
  permission(repo: string, login: string): string
  addReaction(reaction: FakeReaction): void
  reactions(repo: string): FakeReaction[]
}

/** An empty repository state. */
export function createFakeRepositoryState(): FakeRepositoryState {
  const contents = new Map<string, string>()
  const details = new Map<string, FakePullDetails>()
  const permissions = new Map<string, string>()
  const reactions: FakeReaction[] = []
  return {
    setContent(repo, ref, path, text) {
      const key = `${repo}@${ref}:${path}`
      if (text === undefined) contents.delete(key)
      else contents.set(key, text)
    },
    content: (repo, ref, path) => contents.get(`${repo}@${ref}:${path}`),
    setPullDetails: (repo, number, more) => void details.set(`${repo}#${number}`, { ...details.get(`${repo}#${number}`), ...more }),
    pullDetails: (repo, number) => details.get(`${repo}#${number}`) ?? {},
    setPermission: (repo, login, permission) => void permissions.set(`${repo}:${login.toLowerCase()}`, permission),
    permission: (repo, login) => permissions.get(`${repo}:${login.toLowerCase()}`) ?? 'none',
    addReaction: (reaction) => void reactions.push(reaction),
    reactions: (repo) => reactions.filter((r) => r.repo === repo),
  }
}
