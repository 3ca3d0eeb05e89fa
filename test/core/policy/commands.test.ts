/**
 * Pull-request commands: the grammar, the pull request a comment is on (GitHub's comment events, GitLab's real
 * `Note Hook` sample), who is trusted by the event's word or by the code host's (GitLab's roles).
 */
import { describe, expect, it } from 'vitest'
import { associationOf, commandIn, commandOf, ignoredByDescription, namingPullRequest, trusts } from '../../../src/core/policy/commands.js'
import { noteHook } from '../../fixtures/gitlab.js'
import type { Route, RouteCommands } from '../../../src/core/route-types.js'
import type { JsonObject } from '../../../src/core/types.js'
import { policyRouteIssues } from '../../../src/core/policy/route-checks.js'

const commands: RouteCommands = { bot: 'hookpilot', trusted: ['OWNER', 'MEMBER', 'COLLABORATOR'], askPermission: false }
const comment = (body: string, association = 'MEMBER') => ({
  action: 'created',
  issue: { number: 7, pull_request: { url: 'x' } },
  comment: { id: 99, body, user: { login: 'alice' }, author_association: association },
  repository: { full_name: 'o/r' },
})

describe('commandIn', () => {
  it('reads one command addressed to the bot at the start of a line', () => {
    expect(commandIn('@hookpilot review', 'hookpilot')).toBe('review')
    expect(commandIn('Thanks!\n@HookPilot  full   review.', 'hookpilot')).toBe('full review')
    expect(commandIn('@hookpilot[bot] pause', 'hookpilot[bot]')).toBe('pause')
    expect(commandIn('@hookpilot[bot] why', 'hookpilot')).toBe('why')
    expect(commandIn('please @hookpilot review', 'hookpilot')).toBeUndefined()
    expect(commandIn('@hookpilot review this and that', 'hookpilot')).toBeUndefined()
    expect(commandIn('@other review', 'hookpilot')).toBeUndefined()
    expect(commandIn('- `@hookpilot review`: review', 'hookpilot')).toBeUndefined()
  })
})

describe('commandOf', () => {
  it('finds the command, its pull request and its author in a new comment on a pull request', () => {
    expect(commandOf('issue_comment', comment('@hookpilot resume'), commands)).toEqual({ name: 'resume', commentId: 99, on: 'issue', author: 'alice', association: 'MEMBER', number: 7 })
    const onDiff = { action: 'created', pull_request: { number: 3 }, comment: { id: 5, body: '@hookpilot help', user: { login: 'bob' }, author_association: 'NONE' } }
    expect(commandOf('pull_request_review_comment', onDiff, commands)).toMatchObject({ name: 'help', on: 'review', number: 3, association: 'NONE' })
  })

  it('takes no command from an edited comment, an issue that is not a pull request, or another event', () => {
    expect(commandOf('issue_comment', { ...comment('@hookpilot review'), action: 'edited' }, commands)).toBeUndefined()
    expect(commandOf('issue_comment', { ...comment('@hookpilot review'), issue: { number: 7 } }, commands)).toBeUndefined()
    expect(commandOf('pull_request', comment('@hookpilot review'), commands)).toBeUndefined()
  })

  it('trusts the associations the route names, and with ask_permission those who may write', () => {
    expect([trusts(commands, 'MEMBER', undefined), trusts(commands, 'NONE', undefined), trusts(commands, 'CONTRIBUTOR', 'write')]).toEqual([true, false, false])
    const asking = { ...commands, askPermission: true }
    expect([trusts(asking, 'CONTRIBUTOR', 'write'), trusts(asking, 'CONTRIBUTOR', 'triage'), trusts(asking, 'NONE', 'none')]).toEqual([true, false, false])
  })
})

describe("GitLab's Note Hook", () => {
  const at = { project: 'gitlab-org/gitlab-test', iid: 4, id: 1244, user: { id: 31, username: 'dev' } }

  it('finds the command of a note on a merge request, its merge request and its author; the event says no association', () => {
    expect(commandOf('Note Hook', noteHook('@hookpilot pause', at), commands)).toEqual({ name: 'pause', commentId: 1244, on: 'issue', author: 'dev', authorId: 31, association: undefined, number: 4 })
    expect(commandOf('Note Hook', noteHook('Looks good.\n@hookpilot full review', { ...at, type: 'DiffNote' }), commands)).toMatchObject({ name: 'full review', on: 'review' })
  })

  it('takes no command from an edited note, a system note, a note on an issue, or a note that is no command', () => {
    expect(commandOf('Note Hook', noteHook('@hookpilot review', { ...at, action: 'update' }), commands)).toBeUndefined()
    expect(commandOf('Note Hook', noteHook('@hookpilot review', { ...at, system: true }), commands)).toBeUndefined()
    const onIssue = noteHook('@hookpilot review', at)
    onIssue['object_attributes'] = { ...(onIssue['object_attributes'] as JsonObject), noteable_type: 'Issue' }
    expect(commandOf('Note Hook', onIssue, commands)).toBeUndefined()
    expect(commandOf('Note Hook', noteHook('This MR needs work.', at), commands)).toBeUndefined()
  })

  it("stores the note naming its merge request as a Merge Request Hook does (object_attributes.iid), and still reads as the command", () => {
    const stored = namingPullRequest('Note Hook', noteHook('@hookpilot review', at), 4)
    expect((stored['object_attributes'] as Record<string, unknown>)['iid']).toBe(4)
    expect((stored['object_attributes'] as Record<string, unknown>)['id']).toBe(1244)
    expect(commandOf('Note Hook', stored, commands)).toMatchObject({ name: 'review', number: 4 })
    expect(namingPullRequest('issue_comment', comment('@hookpilot review'), 7)['number']).toBe(7)
  })

  it("reads GitLab's roles as associations: Owner OWNER, Maintainer MEMBER, Developer COLLABORATOR, less NONE", () => {
    expect((['admin', 'maintain', 'write', 'triage', 'read', 'none'] as const).map(associationOf)).toEqual(['OWNER', 'MEMBER', 'COLLABORATOR', 'NONE', 'NONE', 'NONE'])
    const maintainers = { ...commands, trusted: ['OWNER', 'MEMBER'] }
    expect([trusts(maintainers, associationOf('maintain'), 'maintain'), trusts(maintainers, associationOf('write'), 'write')]).toEqual([true, false])
  })
})

it('ignoredByDescription: `@bot ignore` on a line of its own', () => {
  expect(ignoredByDescription('Bumps x.\n\n@hookpilot ignore\n', 'hookpilot')).toBe(true)
  expect(ignoredByDescription('do not @hookpilot ignore this', 'hookpilot')).toBe(false)
})

it('policyRouteIssues: a policy route on a backend without notes is refused, saying which backend', () => {
  const route = { name: 'review', deliver: 'github_comment', policy: { file: '.hookpilot.yml', maxBytes: 1000, allow: [], commands: undefined } } as unknown as Route
  const target = { name: 'github_comment', deliver: () => Promise.resolve(), pullRequest: () => undefined }
  expect(policyRouteIssues([route], new Map([['github_comment', target]]), true, 'sqlite')).toEqual([])
  expect(policyRouteIssues([route], new Map([['github_comment', target]]), false, 'my-table')).toEqual([{
    path: 'platforms.webhook.extra.routes.review.policy',
    message: 'the state backend "my-table" keeps no notes, where pauses and notices are kept: use one that does (every built-in backend: memory, sqlite, redis, postgres), or remove the route\'s policy',
  }])
})
