/**
 * Where a job comes from: the link and hook a source reads at accept time, checked before a job keeps them,
 * through the real pipeline (`gateway.handle()`) for GitHub and GitLab; hostile text never becomes a link.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { hookOf, MAX_LINK_LENGTH, validHook, validLink } from '../../src/core/jobs/lifecycle/origin.js'
import { SECRET, testGateway, type TestGateway } from '../fixtures/gateway.js'
import { githubHeaders } from '../fixtures/github.js'

describe('validLink', () => {
  it('keeps an https URL in its normal form, and refuses every other scheme, credentials and a long one', () => {
    expect(validLink('https://github.com/o/r/pull/7')).toBe('https://github.com/o/r/pull/7')
    expect(validLink('https://x.test/"><script>alert(1)</script>')).toBe('https://x.test/%22%3E%3Cscript%3Ealert(1)%3C/script%3E')
    for (const hostile of ['javascript:alert(1)', ' javascript:alert(1)', 'JaVaScRiPt:alert(1)', 'data:text/html,<script>alert(1)</script>',
      'http://github.com/o/r/pull/7', 'https://user:pass@github.com/o/r/pull/7', 'https://token@github.com/', '//github.com/o/r', 'pull/7', 'https://']) {
      expect(validLink(hostile), hostile).toBeUndefined()
    }
    expect(validLink(`https://x.test/${'a'.repeat(MAX_LINK_LENGTH)}`)).toBeUndefined()
    expect(validLink(42)).toBeUndefined()
  })
})

describe('hookOf', () => {
  const repo = { repository: { full_name: 'octo-org/hello-world' }, organization: { login: 'octo-org' } }
  const headers = (type: string, id = '123') => ({ 'x-github-hook-id': id, 'x-github-hook-installation-target-type': type })

  it('names a repository\'s, an organisation\'s and an App\'s hook by its REST path', () => {
    expect(hookOf(headers('repository'), repo)).toBe('repos/octo-org/hello-world/hooks/123')
    expect(hookOf(headers('organization'), repo)).toBe('orgs/octo-org/hooks/123')
    expect(hookOf(headers('integration'), repo)).toBe('app/hook')
  })

  it('refuses an id that is not digits, names out of GitHub\'s charset, and a missing part', () => {
    expect(hookOf(headers('repository', '12/../../x'), repo)).toBeUndefined()
    expect(hookOf(headers('repository', '0'), repo)).toBeUndefined()
    expect(hookOf(headers('repository'), { repository: { full_name: 'octo-org/../admin' } })).toBeUndefined()
    expect(hookOf(headers('repository'), { repository: { full_name: 'octo org/x?y' } })).toBeUndefined()
    expect(hookOf(headers('organization'), { organization: { login: '-bad-' } })).toBeUndefined()
    expect(hookOf(headers('repository'), {})).toBeUndefined()
    expect(hookOf({ 'x-github-hook-id': '123' }, repo)).toBeUndefined()
    expect(hookOf(headers('business'), repo)).toBeUndefined()
    expect(validHook('repos/o/r/hooks/1/deliveries')).toBeUndefined()
  })
})

describe('a job keeps where it came from (through the pipeline)', () => {
  let t: TestGateway | undefined
  afterEach(async () => {
    await t?.gateway.close()
    t = undefined
  })

  const post = async (gateway: TestGateway, path: string, headers: Record<string, string>, body: Uint8Array) => {
    const res = await gateway.gateway.handle({ method: 'POST', path, headers, body })
    expect(res.status).toBe(202)
  }

  it('GitHub: the pull request\'s page and the hook of X-GitHub-Hook-ID; a javascript: link is dropped, the job kept', async () => {
    t = await testGateway()
    const payload = (url: string) => ({ action: 'opened', number: 7, repository: { full_name: 'octo-org/hello-world' }, pull_request: { html_url: url } })
    const good = new TextEncoder().encode(JSON.stringify(payload('https://github.com/octo-org/hello-world/pull/7')))
    const hook = { 'x-github-hook-id': '4242', 'x-github-hook-installation-target-type': 'repository' }
    await post(t, '/webhooks/pr', { ...githubHeaders('pull_request', good, SECRET, 'good'), ...hook }, good)
    const hostile = new TextEncoder().encode(JSON.stringify(payload('javascript:alert(document.cookie)')))
    await post(t, '/webhooks/pr', { ...githubHeaders('pull_request', hostile, SECRET, 'hostile'), 'x-github-hook-id': '1 OR 1' }, hostile)
    expect(await t.state.jobs.find('pr', 'good')).toMatchObject({ link: 'https://github.com/octo-org/hello-world/pull/7', hook: 'repos/octo-org/hello-world/hooks/4242' })
    const dropped = await t.state.jobs.find('pr', 'hostile')
    expect([dropped?.deliveryId, dropped?.link, dropped?.hook]).toEqual(['hostile', undefined, undefined])
  })

  it('GitLab: a merge request\'s page (object_attributes.url)', async () => {
    t = await testGateway({ routes: { mr: { secret: 'gl-token-0123456789', events: ['Merge Request Hook'] } } })
    const url = 'https://gitlab.example.com/group/project/-/merge_requests/3'
    const body = new TextEncoder().encode(JSON.stringify({ object_kind: 'merge_request', object_attributes: { action: 'open', url } }))
    await post(t, '/webhooks/mr', { 'content-type': 'application/json', 'x-gitlab-event': 'Merge Request Hook', 'x-gitlab-token': 'gl-token-0123456789', 'idempotency-key': 'mr-1' }, body)
    expect(await t.state.jobs.find('mr', 'mr-1')).toMatchObject({ link: url, hook: undefined })
  })
})
