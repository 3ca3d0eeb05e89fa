import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Child-process and real-socket tests need headroom on a shared 2-core machine.
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // CI also writes a JSON report, from which .ci/run prints a plain "N passed, N failed" closing line.
    reporters: process.env['CI'] ? ['default', 'json'] : ['default'],
    outputFile: { json: '.ci/test-results.json' },
  },
})
