/**
 * `github_comment` against a real executable: a fake gh first on PATH (or named by gh_path) that records its
 * argv and stdin and fails like the real one when told to.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { DeliveryError } from '../../src/core/errors.js'
import type { AgentAnswer, Route } from '../../src/core/types.js'
import { commentBody, githubCommentDelivery, GITHUB_COMMENT_LIMIT } from '../../src/plugins/targets/github-comment/github-comment-target.js'
import { deliveryTargetContract } from '../../src/testing/delivery-target.js'
import { deliveryContext } from '../../src/testing/context.js'
import { installFakeGh, type FakeGh } from '../fixtures/fake-gh.js'

const GH_TOKEN = 'ghp_Zz9SecretTokenValue0123456789abcdef'
const EXTRA = { repo: 'octo-org/hello-world', pr_number: '1347' }

deliveryTargetContract(
  'githubCommentDelivery',
  () => {
    const gh = installFakeGh()
    const env = gh.env('ok', { GH_TOKEN })
    return {
      target: githubCommentDelivery({ ghPath: gh.path, env }),
      extra: EXTRA,
      delivered: () => gh.calls().map((c) => c.stdin),
      breakDestination: () => void (env['FAKE_GH_MODE'] = 'leak'),
      secrets: [GH_TOKEN, 'ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
      close: () => gh.remove(),
    }
  },
  { breakable: true },
)

const answer = (text: string, extra: Record<string, string> = EXTRA): AgentAnswer => ({
  route: 'github-pr-review', event: 'pull_request', deliveryId: 'd-1', text, extra,
})

async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  const error: unknown = await promise.then(() => undefined, (e: unknown) => e)
  expect(error).toBeInstanceOf(DeliveryError)
  return error as DeliveryError
}

describe('githubCommentDelivery', () => {
  let gh: FakeGh
  beforeEach(() => {
    gh = installFakeGh()
  })
  afterEach(() => gh.remove())

  it('runs `gh pr comment <n> --repo <owner/repo> --body-file -` found on PATH, with the answer on stdin', async () => {
    const text = 'LGTM 👍\n\n- `a.ts`: "quoted" & <b>'
    await githubCommentDelivery({ env: gh.env() }).deliver(answer(text), deliveryContext())
    expect(gh.calls()).toEqual([
      { argv: ['pr', 'comment', '1347', '--repo', 'octo-org/hello-world', '--body-file', '-'], stdin: text },
    ])
  })

  it('runs the executable gh_path names', async () => {
    const env = { ...process.env, PATH: '/nonexistent' }
    await githubCommentDelivery({ ghPath: gh.path, env }).deliver(answer('ok'), deliveryContext())
    expect(gh.calls().map((c) => c.argv[0])).toEqual(['pr'])
  })

  it.each([
    ['repo', '; rm -rf /'], ['repo', '../x'], ['repo', '--repo=x'], ['repo', 'octo-org/../x'], ['repo', 'a/b/c'],
    ['repo', '-o/r'], ['repo', 'o/r; rm -rf ~'], ['repo', '{repository.full_name}'], ['repo', ''], ['repo', 'o/..'],
    ['pr_number', '1 OR 1'], ['pr_number', '-1'], ['pr_number', '0'], ['pr_number', '--repo=x'], ['pr_number', '12abc'],
    ['pr_number', '1; rm -rf /'], ['pr_number', '{number}'], ['pr_number', ''], ['pr_number', ' 12'],
  ])('refuses %s %j without running gh', async (key, value) => {
    const error = await failure(githubCommentDelivery({ env: gh.env() }).deliver(answer('x', { ...EXTRA, [key]: value }), deliveryContext()))
    expect(error.message).toContain(`${key} ${JSON.stringify(value)}`)
    expect(error.message).toContain('gh was not run')
    expect(error.retryable).toBe(false)
    expect(gh.calls()).toEqual([])
  })

  it('accepts the owner/repo names GitHub allows', async () => {
    const target = githubCommentDelivery({ env: gh.env() })
    for (const repo of ['a/b', 'Octo-Org/hello_world.js', 'x1/.github', 'o/repo-name.v2']) {
      await target.deliver(answer('ok', { repo, pr_number: '7' }), deliveryContext())
    }
    expect(gh.calls().map((c) => c.argv[4])).toEqual(['a/b', 'Octo-Org/hello_world.js', 'x1/.github', 'o/repo-name.v2'])
  })

  it('involves no shell: shell syntax in the answer arrives as text and runs nothing', async () => {
    const scratch = mkdtempSync(join(tmpdir(), 'hookpilot-noshell-'))
    const marker = join(scratch, 'pwned')
    const text = `$(touch ${marker}) \`touch ${marker}\`; touch ${marker} | tee ${marker} && echo $HOME`
    await githubCommentDelivery({ env: gh.env() }).deliver(answer(text), deliveryContext())
    await githubCommentDelivery({ env: gh.env() })
      .deliver(answer('x', { repo: `$(touch ${marker})`, pr_number: '1' }), deliveryContext())
      .catch(() => {})
    expect(gh.calls().map((c) => c.stdin)).toEqual([text])
    expect(existsSync(marker)).toBe(false)
    rmSync(scratch, { recursive: true, force: true })
  })

  describe('failures say which', () => {
    const deliver = (env: NodeJS.ProcessEnv, ghPath?: string, timeoutMs?: number) =>
      failure(githubCommentDelivery({ env, ghPath, timeoutMs }).deliver(answer('review'), deliveryContext()))

    it('gh not installed or not on PATH', async () => {
      for (const error of [
        await deliver({ ...process.env, PATH: '/nonexistent' }),
        await deliver(gh.env(), '/nonexistent/bin/gh'),
      ]) {
        expect(error.message).toMatch(/^github_comment: gh is not installed or not on PATH .*platforms\.github\.gh_path/)
        expect(error.retryable).toBe(false)
      }
    })

    it('not authenticated (exit 4, "gh auth login")', async () => {
      const error = await deliver(gh.env('unauthenticated'))
      expect(error.message).toMatch(/gh is not authenticated: run `gh auth login`/)
      expect(error.retryable).toBe(false)
      expect(gh.calls()).toHaveLength(1)
    })

    it('repository not found', async () => {
      const error = await deliver(gh.env('repo-not-found'))
      expect(error.message).toBe('github_comment: repository octo-org/hello-world not found, or the gh account cannot see it')
      expect(error.retryable).toBe(false)
    })

    it('a GitHub 5xx is a passing failure, so the dispatcher retries it', async () => {
      const error = await deliver(gh.env('server-error'))
      expect(error.message).toBe('github_comment: gh exited with code 1: HTTP 502: Bad Gateway (https://api.github.com/graphql)')
      expect(error.retryable).toBe(true)
    })

    it('another failure shows stderr with tokens removed', async () => {
      const ctx = deliveryContext()
      const error = await failure(
        githubCommentDelivery({ env: gh.env('leak', { GH_TOKEN }) }).deliver(answer('review'), ctx),
      )
      expect(error.message).toMatch(/^github_comment: gh exited with code 1: HTTP 422: Validation Failed/)
      expect(error.message).toContain('[redacted]')
      expect(error.message).not.toContain(GH_TOKEN)
      expect(error.message).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789')
      expect(error.retryable).toBe(false)
    })

    it('a gh that hangs is stopped at the timeout and not retried (the comment may be posted)', async () => {
      const started = Date.now()
      const error = await deliver(gh.env('hang'), undefined, 300)
      expect(Date.now() - started).toBeLessThan(5_000)
      expect(error.message).toMatch(/gh did not finish within 300 ms .*not retried/)
      expect(error.retryable).toBe(false)
    })
  })

  it('cuts an answer longer than GitHub takes, with a note, instead of failing', async () => {
    const text = 'x'.repeat(40_000) + '\n' + 'y'.repeat(40_000)
    await githubCommentDelivery({ env: gh.env() }).deliver(answer(text), deliveryContext())
    const body = gh.calls()[0]?.stdin ?? ''
    expect(body.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT)
    expect(body.startsWith('x'.repeat(40_000) + '\ny')).toBe(true)
    expect(body).toMatch(/… \(cut: the answer was 80,001 characters; GitHub comments hold at most 65,536\)$/)
  })

  it('never ends a cut answer on half a surrogate pair, and posts a note for an empty answer', () => {
    for (let shift = 0; shift < 4; shift++) {
      const body = commentBody('a'.repeat(shift) + '😀'.repeat(40_000))
      expect(body.length).toBeLessThanOrEqual(GITHUB_COMMENT_LIMIT)
      expect(body).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/)
    }
    expect(commentBody('  \n')).toBe('(the agent gave an empty answer)')
    expect(commentBody('short')).toBe('short')
  })

  describe('checkRoute', () => {
    const route = (deliverExtra: Record<string, string>): Route => ({
      name: 'pr', secrets: ['s'], events: [], actions: [], prompt: undefined, skills: [], deliver: 'github_comment', deliverExtra,
      silentOutputs: [], rateLimit: 30, source: 'static', description: undefined,
    })
    const check = (extra: Record<string, string>) => githubCommentDelivery().checkRoute?.(route(extra))

    it('accepts templates and valid literals', () => {
      expect(check({ repo: '{repository.full_name}', pr_number: '{number}' })).toBeUndefined()
      expect(check({ repo: 'octo-org/hello-world', pr_number: '12' })).toBeUndefined()
    })

    it('refuses a route without repo or pr_number, naming the route and what is missing', () => {
      expect(check({ repo: '{repository.full_name}' })).toMatch(/^route "pr" delivers to github_comment, which needs .*missing: pr_number$/)
      expect(check({})).toMatch(/missing: repo, pr_number$/)
    })

    it('refuses a literal that can never be valid', () => {
      expect(check({ repo: '../x', pr_number: '{number}' })).toMatch(/^route "pr": repo "..\/x" is not an owner\/repo name/)
      expect(check({ repo: 'o/r', pr_number: '-1' })).toMatch(/pr_number "-1" is not a positive integer/)
    })
  })
})
