/**
 * Reading a repository's policy file for a pull request: always from the **base** branch's commit, through the
 * code host's API, so a pull request (a fork's or not) never decides its own review's policy; kept per base
 * commit (a commit's file never changes), a bounded number of them.
 */
import type { PullRequestHost } from '../code-host-types.js'
import type { ConfigIssue } from '../errors.js'
import { messageOf } from '../errors.js'
import type { RoutePolicy } from '../route-types.js'
import { allowedPolicy } from './effective-policy.js'
import { parsePolicy, type PolicyFile } from './policy-file.js'

/** What the policy of one pull request is: where it was read, what applies, and what was wrong with the file. */
export interface ReadPolicy {
  /** The file's path and the commit it was read at, or undefined when the route reads no file. */
  readonly source: { readonly path: string; readonly ref: string; readonly found: boolean } | undefined
  /** What applies: the file, cut to what the gateway allows; empty when there is none or it does not validate. */
  readonly policy: PolicyFile
  /** Why the file does not apply (it does not validate, is too large, could not be read); empty when it applies. */
  readonly issues: readonly ConfigIssue[]
  /** Keys the file sets that the gateway does not let a repository set (dropped). */
  readonly refused: readonly string[]
}

/** Base commits whose policy is kept. */
const CACHED_COMMITS = 256

/** Reads policies, each base commit's once. */
export interface PolicyReader {
  read(host: PullRequestHost, repo: string, baseSha: string, policy: RoutePolicy): Promise<ReadPolicy>
}

/** A reader with its own cache of {@link CACHED_COMMITS} base commits (the oldest read goes first). */
export function createPolicyReader(): PolicyReader {
  const cache = new Map<string, Promise<ReadPolicy>>()
  return {
    read(host, repo, baseSha, route) {
      const path = route.file
      if (path === undefined) return Promise.resolve({ source: undefined, policy: {}, issues: [], refused: [] })
      // The limits and the allowed keys are part of the key: two routes may read one file differently.
      const key = JSON.stringify([repo, baseSha, path, route.maxBytes, route.allow])
      let read = cache.get(key)
      if (read === undefined) {
        read = readOnce(host, path, baseSha, route)
        cache.set(key, read)
        // A failed read (the API was down) is not kept: the next job asks again.
        void read.then((r) => {
          if (r.issues.some((i) => i.path === '(read)')) cache.delete(key)
        })
        if (cache.size > CACHED_COMMITS) cache.delete(cache.keys().next().value!)
      }
      return read
    },
  }
}

async function readOnce(host: PullRequestHost, path: string, ref: string, route: RoutePolicy): Promise<ReadPolicy> {
  let file
  try {
    file = await host.readFile(path, ref, route.maxBytes)
  } catch (err) {
    return { source: { path, ref, found: false }, policy: {}, issues: [{ path: '(read)', message: `the file could not be read: ${messageOf(err)}` }], refused: [] }
  }
  if (file.kind === 'missing') return { source: { path, ref, found: false }, policy: {}, issues: [], refused: [] }
  if (file.kind === 'too_large') {
    return { source: { path, ref, found: true }, policy: {}, issues: [{ path: '(file)', message: `the file is ${file.bytes} bytes; at most ${route.maxBytes} are read: make it smaller` }], refused: [] }
  }
  const parsed = parsePolicy(file.text, route.maxBytes)
  if (!parsed.ok) return { source: { path, ref, found: true }, policy: {}, issues: parsed.issues, refused: [] }
  const allowed = allowedPolicy(parsed.policy, route.allow)
  return { source: { path, ref, found: true }, policy: allowed.policy, issues: [], refused: allowed.refused }
}
