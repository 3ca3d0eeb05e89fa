/**
 * The testing kit's deliveryTargetContract registers only cases that check something, and never a skipped one
 * (issue 38, item 15; our standards allow no skipped tests): a real vitest runs the contract over two harnesses
 * that are not breakable (test/fixtures/delivery-contract), and this file reads what it reported.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

interface Reported {
  readonly fullName: string
  readonly status: string
  readonly failureMessages: readonly string[]
}

const folder = fileURLToPath(new URL('../fixtures/delivery-contract/', import.meta.url))
const vitestBin = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs')
const out = mkdtempSync(join(tmpdir(), 'delivery-contract-'))
let results: Reported[] = []
let printed = ''

beforeAll(async () => {
  const report = join(out, 'report.json')
  printed = await new Promise<string>((resolve) => {
    // It exits 1: the leaky harness fails its secret case, as it must.
    execFile(process.execPath, [vitestBin, 'run', '--config', 'vitest.config.ts', `--outputFile=${report}`], { cwd: folder, env: { ...process.env, NO_COLOR: '1', CI: '' } }, (_error, stdout) => resolve(stdout))
  })
  const parsed = JSON.parse(readFileSync(report, 'utf8')) as { testResults: { assertionResults: Reported[] }[] }
  results = parsed.testResults.flatMap((f) => f.assertionResults)
}, 60_000)
afterAll(() => rmSync(out, { recursive: true, force: true }))

const of = (harness: string) => results.filter((r) => r.fullName.startsWith(`${harness} (DeliveryTarget contract)`))

describe('deliveryTargetContract', () => {
  it('registers the failure case only for a breakable harness, and lists no case as skipped', () => {
    expect(results.length).toBeGreaterThan(0)
    for (const harness of ['plain', 'leaky']) expect(of(harness).filter((r) => r.fullName.includes('fails with a DeliveryError')), harness).toEqual([])
    expect(results.filter((r) => r.status !== 'passed' && r.status !== 'failed')).toEqual([])
    expect(printed).not.toMatch(/skipped/)
  })

  it('checks the log of every delivery for each secret the harness gives, breakable or not: a target that logs its secret fails', () => {
    const failed = of('leaky').filter((r) => r.status === 'failed')
    expect(failed.map((r) => r.fullName.replace(/^leaky \(DeliveryTarget contract\) /, ''))).toEqual([
      'delivers the answer text once, as it is, and writes none of the harness\'s secrets to the log',
      'delivers an empty answer and a bare SKIP (the gateway decides what is silent, not the target)',
    ])
    for (const r of failed) expect(r.failureMessages.join('\n')).toContain('not to contain')
  })

  it('runs every case that applies to a harness with no secrets and no way to break its destination', () => {
    expect(of('plain').map((r) => [r.fullName.replace(/^plain \(DeliveryTarget contract\) /, ''), r.status])).toEqual([
      ['has a name, and aliases that are names too', 'passed'],
      ['delivers the answer text once, as it is, and writes none of the harness\'s secrets to the log', 'passed'],
      ['delivers an empty answer and a bare SKIP (the gateway decides what is silent, not the target)', 'passed'],
    ])
  })
})
