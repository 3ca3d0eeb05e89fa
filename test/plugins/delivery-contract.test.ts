/**
 * The testing kit's deliveryTargetContract lists what it cannot run instead of passing in silence (issue 38,
 * item 15): a real vitest runs the contract over two harnesses that are not breakable (test/fixtures/
 * delivery-contract), and this file reads what it reported.
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
  it('lists the failure case as skipped, with its reason, when the harness is not breakable', () => {
    for (const harness of ['plain', 'leaky']) {
      const failure = of(harness).find((r) => r.fullName.includes('fails with a DeliveryError'))
      expect(failure, harness).toMatchObject({ status: 'skipped', fullName: expect.stringContaining('(cannot: the harness cannot make its destination fail') })
    }
  })

  it('runs the secret checks whenever secrets are given, breakable or not: a target that logs its secret fails', () => {
    const secretCase = of('leaky').find((r) => r.fullName.includes('writes no secret to the log'))
    expect(secretCase?.status).toBe('failed')
    expect(secretCase?.failureMessages.join('\n')).toContain('not to contain')
  })

  it('lists the secret checks as skipped, with the reason, when the harness names no secrets', () => {
    const secretCase = of('plain').find((r) => r.fullName.includes('writes no secret to the log'))
    expect(secretCase?.status).toBe('skipped')
    expect(printed).toMatch(/writes no secret to the log while it delivers.*\[the harness names no secrets/)
  })

  it('still runs every case it can', () => {
    expect(of('plain').filter((r) => r.status === 'passed').map((r) => r.fullName.replace(/^plain \(DeliveryTarget contract\) /, ''))).toEqual([
      'has a name, and aliases that are names too',
      'delivers the answer text once, as it is',
      'delivers an empty answer and a bare SKIP (the gateway decides what is silent, not the target)',
    ])
  })
})
