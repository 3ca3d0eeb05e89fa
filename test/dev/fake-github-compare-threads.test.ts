/**
 * The fake GitHub's compare API and review threads, over real HTTP: compare answers from the commit graph
 * (`identical`, `ahead`, `behind`, `diverged`, 404 for an unknown commit); review threads over GraphQL in GitHub's
 * shapes (an App's login without `[bot]`, an outdated thread's `line` null, replies, paging), resolved by
 * `resolveReviewThread`, and failures answered as HTTP 200 with `errors`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startFakeGithub, type FakeGithub } from '../../src/dev/github/server.js'
import { RESOLVE_THREAD_MUTATION, REVIEW_THREADS_QUERY } from '../../src/plugins/targets/github-comment/review-api.js'

const REPO = 'acme/gateway'
const [ROOT, A, B, C, D] = ['1', '2', '3', '4', '5'].map((digit) => digit.repeat(40)) as [string, string, string, string, string]
const PATCH = '@@ -1,3 +1,4 @@\n const a = 1\n-const b = 2\n+const b = 3\n+const c = 4\n const d = 5'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON of several shapes, each asserted on below
type Json = any

let github: FakeGithub
beforeEach(async () => {
  github = await startFakeGithub({ login: 'my-app[bot]' })
  github.addAccount('person-token', 'octocat')
  github.setHead(REPO, 7, B)
  github.setFiles(REPO, 7, B, [{ filename: 'src/a.ts', status: 'modified', patch: PATCH }])
  // ROOT ← A ← B, and A ← C (a rewrite of B); D is unknown to GitHub.
  github.addCommit(REPO, ROOT)
  github.addCommit(REPO, A, [ROOT])
  github.addCommit(REPO, B, [A])
  github.addCommit(REPO, C, [A])
})
afterEach(async () => github.close())

async function call(method: string, path: string, body?: unknown, token = github.token): Promise<{ status: number, json: Json }> {
  const res = await fetch(`${github.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: res.status, json: await res.json() }
}

describe('the fake GitHub: compare', () => {
  it('says how the head relates to the base, from the commit graph, with GitHub\'s counts', async () => {
    const ahead = await call('GET', `/repos/${REPO}/compare/${ROOT}...${B}`)
    expect(ahead.status).toBe(200)
    expect(ahead.json).toMatchObject({ status: 'ahead', ahead_by: 2, behind_by: 0, total_commits: 2, merge_base_commit: { sha: ROOT } })
    expect(ahead.json.commits.map((c: Json) => c.sha)).toEqual([A, B])
    expect((await call('GET', `/repos/${REPO}/compare/${B}...${B}`)).json.status).toBe('identical')
    expect((await call('GET', `/repos/${REPO}/compare/${B}...${A}`)).json).toMatchObject({ status: 'behind', behind_by: 1 })
    expect((await call('GET', `/repos/${REPO}/compare/${B}...${C}`)).json).toMatchObject({ status: 'diverged', ahead_by: 1, behind_by: 1, merge_base_commit: { sha: A } })
    expect((await call('GET', `/repos/${REPO}/compare/${D}...${B}`)).status).toBe(404)
  })
})

describe('the fake GitHub: review threads', () => {
  async function threads(after?: string): Promise<Json> {
    const { status, json } = await call('POST', '/graphql', { query: REVIEW_THREADS_QUERY, variables: { owner: 'acme', name: 'gateway', number: 7, after: after ?? null } })
    expect(status).toBe(200)
    return json
  }

  it('a review\'s comments start threads, shown in GraphQL\'s shape with the App\'s login as GraphQL writes it; replies join them', async () => {
    const created = await call('POST', `/repos/${REPO}/pulls/7/reviews`, { commit_id: B, body: 'Summary', event: 'COMMENT', comments: [{ path: 'src/a.ts', line: 2, side: 'RIGHT', body: 'first' }, { path: 'src/a.ts', line: 2, side: 'LEFT', body: 'second' }] })
    expect(created.status).toBe(200)
    const [root] = github.threads(REPO, 7)
    const reply = await call('POST', `/repos/${REPO}/pulls/7/comments/${root!.root.id}/replies`, { body: 'I disagree.' }, 'person-token')
    expect(reply.status).toBe(201)
    expect(reply.json).toMatchObject({ in_reply_to_id: root!.root.id, user: { login: 'octocat' } })
    // REST lists the reply among the review comments, naming the comment it answers.
    const listed = (await call('GET', `/repos/${REPO}/pulls/7/comments`)).json
    expect(listed.map((c: Json) => [c.body, c.in_reply_to_id ?? null])).toEqual([['first', null], ['second', null], ['I disagree.', root!.root.id]])
    github.outdateThread(github.threads(REPO, 7)[1]!.id)

    const nodes = (await threads()).data.repository.pullRequest.reviewThreads.nodes
    expect(nodes).toEqual([
      expect.objectContaining({ id: expect.stringMatching(/^PRRT_/), isResolved: false, isOutdated: false, path: 'src/a.ts', line: 2, diffSide: 'RIGHT', comments: { totalCount: 2, nodes: [
        expect.objectContaining({ body: 'first', author: { login: 'my-app', __typename: 'Bot' } }),
        expect.objectContaining({ body: 'I disagree.', author: { login: 'octocat', __typename: 'User' } }),
      ] } }),
      expect.objectContaining({ isOutdated: true, line: null, originalLine: 2, diffSide: 'LEFT' }),
    ])
  })

  it('resolveReviewThread resolves once; an unknown thread is an error inside a 200, as GitHub answers', async () => {
    await call('POST', `/repos/${REPO}/pulls/7/reviews`, { commit_id: B, body: 'Summary', event: 'COMMENT', comments: [{ path: 'src/a.ts', line: 3, body: 'c?' }] })
    const [thread] = github.threads(REPO, 7)
    const resolved = await call('POST', '/graphql', { query: RESOLVE_THREAD_MUTATION, variables: { id: thread!.id } })
    expect(resolved).toEqual({ status: 200, json: { data: { resolveReviewThread: { thread: { id: thread!.id, isResolved: true } } } } })
    expect(github.threads(REPO, 7)[0]).toMatchObject({ resolved: true, resolvedBy: 'my-app[bot]' })
    expect((await threads()).data.repository.pullRequest.reviewThreads.nodes[0]).toMatchObject({ isResolved: true, viewerCanResolve: false })

    const unknown = await call('POST', '/graphql', { query: RESOLVE_THREAD_MUTATION, variables: { id: 'PRRT_nope' } })
    expect(unknown.status).toBe(200)
    expect(unknown.json).toEqual({ data: { resolveReviewThread: null }, errors: [expect.objectContaining({ type: 'NOT_FOUND', message: "Could not resolve to a node with the global id of 'PRRT_nope'" })] })
  })

  it('pages 100 threads at a time with a cursor', async () => {
    // 101 lines commentable: one hunk adding them.
    const many = `@@ -0,0 +1,101 @@\n${Array.from({ length: 101 }, (_, i) => `+line ${i + 1}`).join('\n')}`
    github.setFiles(REPO, 7, B, [{ filename: 'src/many.ts', status: 'added', patch: many }])
    const comments = Array.from({ length: 101 }, (_, i) => ({ path: 'src/many.ts', line: i + 1, body: `n${i + 1}` }))
    expect((await call('POST', `/repos/${REPO}/pulls/7/reviews`, { commit_id: B, body: 'Summary', event: 'COMMENT', comments })).status).toBe(200)
    const first = (await threads()).data.repository.pullRequest.reviewThreads
    expect(first.nodes).toHaveLength(100)
    expect(first.pageInfo.hasNextPage).toBe(true)
    const second = (await threads(first.pageInfo.endCursor)).data.repository.pullRequest.reviewThreads
    expect(second.nodes.map((n: Json) => n.line)).toEqual([101])
    expect(second.pageInfo.hasNextPage).toBe(false)
  })
})
