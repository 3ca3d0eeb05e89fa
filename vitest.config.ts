import { existsSync } from 'node:fs'
import { configDefaults, defineConfig } from 'vitest/config'

/**
 * Two projects. `unit` (`npm run test:unit`) needs no daemon and no tool beyond node (its child processes are
 * our CLI, fixture agents and the fake gh, run by this node) and runs in under a minute on 2 cores. `system`
 * holds the rest, listed here: `npm test` (and CI) runs both.
 */
const SYSTEM_TESTS = [
  // They start a daemon of their own, or run a tool beyond node.
  'test/plugins/redis-state.test.ts', // redis-server
  'test/e2e/redis-instances.test.ts', // redis-server
  'test/plugins/redis-outages.test.ts', // redis-server
  'test/plugins/redis-replay.test.ts', // redis-server
  'test/plugins/redis-max-queue.test.ts', // redis-server
  'test/e2e/redis-frozen.test.ts', // redis-server
  'test/e2e/redis-reviews.test.ts', // redis-server and the real gh CLI
  'test/e2e/nginx.test.ts', // nginx
  'test/e2e/nginx-instances.test.ts', // nginx and redis-server
  'test/plugins/metrics-scrape.test.ts', // prometheus
  'test/plugins/github-comment-sticky.test.ts', // the real gh CLI, against a fake GitHub API
  // The real gh CLI, against a fake GitHub API, from hookpilot serve.
  'test/e2e/reviews.test.ts',
  'test/e2e/reviews-crash.test.ts',
  'test/e2e/reviews-outcomes.test.ts',
  'test/e2e/status-page.test.ts', // a headless Chromium (Debian's chromium, driven by playwright-core)
  // Only node, but it kills and restarts about a hundred real process trees (gateway, watchdogs, agents, gh):
  // some 40 s of CPU on its own, the whole budget of the fast run.
  'test/e2e/durability.test.ts',
  // Only node, but it stores, fails and replays 10,000 jobs on SQLite (some 30 s) to measure the replay's heap.
  'test/cli/bulk-replay-10k.test.ts',
  'test/e2e/crash-recovery.test.ts', // the same kind of kill -9 and restart
]
// A renamed file would otherwise fall out of both projects without a word.
for (const file of SYSTEM_TESTS) if (!existsSync(new URL(file, import.meta.url))) throw new Error(`vitest.config.ts lists ${file}, which does not exist`)

export default defineConfig({
  test: {
    // Child-process and real-socket tests need headroom on a shared 2-core machine.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // expect.poll waits on child processes and sockets here: vitest's default of 1 s is a margin a loaded machine overruns.
    expect: { poll: { timeout: 10_000 } },
    pool: 'forks',
    // CI also writes a JSON report, from which .ci/run prints a plain "N passed, N failed" closing line.
    reporters: process.env['CI'] ? ['default', 'json'] : ['default'],
    outputFile: { json: '.ci/test-results.json' },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...SYSTEM_TESTS],
          // Most of these tests wait on child processes and sockets, so more workers than cores pay off (vitest's
          // default is cores - 1: a single worker on 2 cores).
          maxWorkers: '150%',
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // After the unit files, on vitest's default workers: their timings do not compete with the unit workers.
        test: { name: 'system', include: SYSTEM_TESTS, sequence: { groupOrder: 1 } },
      },
    ],
  },
})
