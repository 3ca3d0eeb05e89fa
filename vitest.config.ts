import { configDefaults, defineConfig } from 'vitest/config'

/**
 * Three projects, chosen by where a test lives or how it is named, never by a hand-kept list (one misfiled two
 * Redis tests into the run that needs no daemon):
 *
 * - `unit` (`npm run test:unit`, the inner loop): every other `test/**\/*.test.ts`. It needs no daemon and no tool
 *   beyond node, and runs in under 90 s on 2 cores.
 * - `system`: `*.system.test.ts`, beside its subject. A test takes the suffix when it starts a daemon
 *   (redis-server, nginx, prometheus), runs a tool beyond node (gh, chromium), or kills and restarts whole
 *   `hookpilot` processes (crash runs) or other heavy process trees.
 * - `package`: `test/package/`, the API reports and what `npm pack` ships, checked against the build.
 *
 * `npm test` (and CI) runs all three.
 */
const SYSTEM = 'test/**/*.system.test.ts'
const PACKAGE = 'test/package/**/*.test.ts'

export default defineConfig({
  test: {
    // Child-process and real-socket tests need headroom on a shared 2-core machine.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // expect.poll waits on child processes and sockets here: vitest's default of 1 s is a margin a loaded machine
    // overruns. Half the test's 20 s, so a poll never waits longer than its test may run; a test that polls longer
    // gives itself a longer timeout.
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
          exclude: [...configDefaults.exclude, SYSTEM, PACKAGE],
          // Most of these tests wait on child processes and sockets, so more workers than cores pay off (vitest's
          // default is cores - 1: a single worker on 2 cores).
          maxWorkers: '150%',
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        // After the unit files, so their timings do not compete with the unit workers. Two workers: each file starts
        // its daemons and children on ports of its own and mostly waits on them, so two overlap on 2 cores (one
        // worker, vitest's default there, made CI's run about 20 minutes).
        test: { name: 'system', include: [SYSTEM], maxWorkers: 2, sequence: { groupOrder: 1 } },
      },
      {
        extends: true,
        test: { name: 'package', include: [PACKAGE], sequence: { groupOrder: 2 } },
      },
    ],
  },
})
