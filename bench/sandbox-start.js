/**
 * `node bench/sandbox-start.js` (after `npm run build`): what `agent.sandbox` adds to the start of an agent run.
 * Runs the same short program (`true`, then `node -e ''`) through runProcess (its watchdog included) without a
 * sandbox and inside bubblewrap, alternating, and prints the median and 90th percentile of each, in ms. Agent
 * runs last seconds to minutes; this is the price of the sandbox per run (and per openai command).
 *
 *   BENCH_SANDBOX_RUNS [30]  runs of each kind
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bubblewrapSandbox, probeBubblewrap } from '../dist/core/agents/setup/agent-sandbox.js'
import { runProcess } from '../dist/core/agents/run-process.js'

const RUNS = Math.max(1, Number(process.env.BENCH_SANDBOX_RUNS ?? 30))
const probe = await probeBubblewrap()
if (!probe.ok) {
  console.log(`sandbox start: skipped, ${probe.missing}`)
  process.exit(0)
}
const cwd = mkdtempSync(join(tmpdir(), 'hookpilot-bench-sandbox-'))
const sandbox = bubblewrapSandbox(probe.bwrap, [])
const quantile = (values, q) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]
const time = async (argv, options) => {
  const started = performance.now()
  const result = await runProcess(argv, { cwd, ...options })
  if (result.code !== 0) throw new Error(`${argv.join(' ')} failed: ${result.stderr || result.error?.message}`)
  return performance.now() - started
}

console.log(`agent run start, ms (${RUNS} runs each, ${probe.bwrap}):`)
console.log('program        unsandboxed p50  p90   sandboxed p50  p90   added p50')
for (const argv of [['true'], [process.execPath, '-e', '']]) {
  const plain = []
  const boxed = []
  await time(argv, {})
  await time(argv, { sandbox })
  for (let i = 0; i < RUNS; i++) {
    plain.push(await time(argv, {}))
    boxed.push(await time(argv, { sandbox }))
  }
  const f = (n) => n.toFixed(1).padStart(6)
  const name = argv[0] === 'true' ? 'true' : "node -e ''"
  console.log(`${name.padEnd(14)} ${f(quantile(plain, 0.5))}     ${f(quantile(plain, 0.9))}  ${f(quantile(boxed, 0.5))}     ${f(quantile(boxed, 0.9))}   ${f(quantile(boxed, 0.5) - quantile(plain, 0.5))}`)
}
rmSync(cwd, { recursive: true, force: true })
