/** Pull-request commands: the grammar, the pull request a comment is on, and who is trusted by the event's word. */
import { describe, expect, it } from 'vitest'
import { commandIn, commandOf, ignoredByDescription, trustedByAssociation } from '../../../src/core/policy/commands.js'
import type { Route, RouteCommands } from '../../../src/core/route-types.js'
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

  it('trusts the associations the route names', () => {
    const member = commandOf('issue_comment', comment('@hookpilot review'), commands)!
    const stranger = commandOf('issue_comment', comment('@hookpilot review', 'NONE'), commands)!
    expect([trustedByAssociation(member, commands), trustedByAssociation(stranger, commands)]).toEqual([true, false])
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
