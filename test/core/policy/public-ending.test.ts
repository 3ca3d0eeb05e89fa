import { describe, expect, it } from 'vitest'
import { publicEnding } from '../../../src/core/policy/public-ending.js'

describe('publicEnding', () => {
  it("says the policy's reasons and a refusing budget's name, never a failure's reason or a budget's amounts", () => {
    expect(publicEnding('skipped', 'policy: filters.ignore_paths: every changed file (2) matches ignore_paths')).toEqual({ short: "skipped by the repository's policy", said: 'filters.ignore_paths: every changed file (2) matches ignore_paths' })
    const budget = 'budget pull_request of pull request o/r#7 has no room: $0.20 of $0.30 spent, $0.25 reserved (costs.budgets.pull_request)'
    expect(publicEnding('skipped', budget)).toEqual({ short: 'a budget has no room', said: 'a budget has no room (costs.budgets.pull_request)' })
    expect(publicEnding('skipped', 'the agent answered "LGTM", one of the route\'s silent_outputs').said).toBe('nothing to post')
    expect(publicEnding('failed', 'agent exited 1: cat: /etc/hookpilot/secret.env: Permission denied').said).toBe('the review failed; the operator can see why')
    expect(publicEnding('superseded', 'superseded by job 9').said).toBe('a newer event of this pull request came first')
  })
})
