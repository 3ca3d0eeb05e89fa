/**
 * The command intake's time with the code host: a GitLab command asks the host for the commenter's role and then
 * reacts; both share one budget (COMMAND_HOST_TIMEOUT_MS), so a slow host cannot hold the sender's answer past it.
 */
import { describe, expect, it } from 'vitest'
import { COMMAND_HOST_TIMEOUT_MS, createCommandIntake } from '../../../src/core/policy/command-intake.js'
import type { PullRequestHost } from '../../../src/core/code-host-types.js'
import type { DeliveryTarget, Route } from '../../../src/core/types.js'
import { silentLogger } from '../../../src/core/log/logger.js'
import { noteHook } from '../../fixtures/gitlab.js'

const route = {
  name: 'mr-review', deliver: 'slow', deliverExtra: {},
  policy: { file: '.hookpilot.yml', maxBytes: 1000, allow: [], commands: { bot: 'hookpilot', trusted: ['OWNER', 'MEMBER', 'COLLABORATOR'], askPermission: false } },
} as unknown as Route

/** A host that answers the permission after `permissionMs` and never finishes a reaction until its signal aborts. */
function slowHost(permissionMs: number, reactionAborted: (at: number) => void): DeliveryTarget {
  const never = () => Promise.reject(new Error('not asked'))
  return {
    name: 'slow',
    deliver: async () => undefined,
    pullRequest: ({ signal }): PullRequestHost => ({
      repo: 'group/project', number: 1, facts: never, changedPaths: never, readFile: never, reply: never, notice: never,
      permission: () => new Promise((resolve) => setTimeout(() => resolve('write'), permissionMs)),
      react: () => new Promise((_, reject) => signal.addEventListener('abort', () => {
        reactionAborted(performance.now())
        reject(new Error('aborted'))
      }, { once: true })),
    }),
  }
}

describe('the command intake', () => {
  it('gives the permission and the reaction one budget together: a slow permission leaves the reaction only the rest', async () => {
    let abortedAt = 0
    const intake = createCommandIntake({
      targets: new Map([['slow', slowHost(COMMAND_HOST_TIMEOUT_MS / 2, (at) => (abortedAt = at))]]),
      notes: undefined, log: silentLogger, clock: Date.now, signal: new AbortController().signal,
    })
    const started = performance.now()
    const event = { type: 'Note Hook', payload: noteHook('@hookpilot review', { project: 'group/project', iid: 1, id: 5, user: { id: 9, username: 'dev' } }), receivedAt: Date.now() }
    const check = await intake.check(event as never, route)
    expect(check.kind).toBe('command')
    if (check.kind !== 'command') return
    await intake.acknowledge(route, check.command, check.payload, check.hostBudget)
    // The reaction was stopped when the one budget ran out, counted from the check's start: within the 5 s the docs
    // promise, where a budget of its own after the permission's half would end at 1.5 budgets (6 s).
    expect(abortedAt - started).toBeGreaterThanOrEqual(COMMAND_HOST_TIMEOUT_MS - 50)
    expect(abortedAt - started).toBeLessThan(5_000)
  }, 15_000)
})
