/**
 * What the command line says to a typo (issue 38, item 16): "did you mean" wherever a close word exists, every
 * bad --when at once, and a top-level help that lists every market command. In-process: no build needed.
 */
import { describe, expect, it } from 'vitest'
import type { CliIO } from '../../src/cli/io.js'
import { main } from '../../src/cli/run.js'

async function cli(...args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const stream = (sink: string[]) => ({ isTTY: false, write: (s: string) => (sink.push(s), true) }) as unknown as CliIO['stdout']
  const code = await main(args, { stdout: stream(out), stderr: stream(err), env: {}, cwd: process.cwd() })
  return { code, stdout: out.join(''), stderr: err.join('') }
}

describe('usage hints', () => {
  it('market book --outcom: did you mean --outcome', async () => {
    const r = await cli('market', 'book', 'some-slug', '--outcom', 'Yes', '--mock')
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("Unknown option '--outcom' (did you mean --outcome?)")
  })

  it('jobs lst: did you mean "list"', async () => {
    const r = await cli('jobs', 'lst')
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('unknown jobs command "lst" (did you mean "list"?)')
  })

  it('subscribe --market with two bad --when: both are told, each with its "did you mean"', async () => {
    const r = await cli('subscribe', '--market', 'some-slug', '--when', 'midpont_moves=0.05/600', '--when', 'price_crosess=0.5')
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('no condition "midpont_moves" (did you mean midpoint_moves?)')
    expect(r.stderr).toContain('no condition "price_crosess" (did you mean price_crosses?)')
  })

  it('the top-level help lists every market command, export included', async () => {
    const top = (await cli('--help')).stdout
    const marketHelp = (await cli('market', '--help')).stdout
    const commands = [...marketHelp.split('Commands:\n')[1]!.split('\n\n')[0]!.matchAll(/^ {2}(\w+)/gm)].map((m) => m[1])
    expect(commands).toContain('export')
    const listed = /market +query prediction-market data \(([^)]*)\)/.exec(top)?.[1]?.split(', ')
    expect(listed).toEqual(commands)
  })
})
