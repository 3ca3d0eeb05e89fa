/**
 * The public surface is explicit: one entry per public plugin (no wildcard), no CLI internals reachable from
 * any entry point, and the checked-in API report (api/) equal to what dist/ publishes, so a change to the
 * surface is a diff someone reviewed. `npm test` builds first; run `npm run api:update` after a deliberate change.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { describeDifferences, entryPoints, generateReports, keptReports, lineDiff, ROOT } from '../../scripts/api-report.mjs'

interface EntryPoint { readonly specifier: string; readonly report: string; readonly types: string }

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown> }
const entries = entryPoints() as EntryPoint[]

/** What the CLI uses from the plugins' folders: exported between modules, never published. */
const CLI_INTERNALS = ['openStateDb', 'groupCommit', 'sqliteJobsView', 'redactedUrl', 'commentBody']
/**
 * Removed: nothing called them (AgentError) or no caller could set them (the retry policy). The crash-loop
 * rule's MAX_RUNS is no longer the root's either; it belongs to the lifecycle, which hookpilot/backend-kit
 * publishes for backend authors.
 */
// 0.2 made these internal: the define* sugar (one plugin form: definePlugin), and what only the CLI and the core use.
const REMOVED = [
  'AgentError', 'DEFAULT_RETRY', 'RetryPolicy',
  'defineDeliveryTarget', 'defineAgentRunner', 'defineEventFilter', 'defineSources', 'defineStateBackend', 'defineRateLimiter',
  'createSecretSet', 'runEnvironment', 'configDir', 'isPluginDefinition', 'renderTemplate', 'resolveSubscriptions',
]
// Moved from the root to hookpilot/subscriptions in 0.2.
const ROOT_ONLY_REMOVED = ['MAX_RUNS', 'subscriptionsPath', 'readSubscriptions', 'updateSubscriptions', 'fileSubscriptionStore']

describe('the exports map', () => {
  it('names every entry point: no wildcard, every target built', () => {
    expect(Object.keys(pkg.exports).filter((key) => key.includes('*'))).toEqual([])
    expect(entries.length).toBeGreaterThan(20)
    for (const entry of entries) expect(readFileSync(entry.types, 'utf8').length, entry.specifier).toBeGreaterThan(0)
  })

  it('publishes no CLI internal and none of the removed names, at run time or in the types', async () => {
    const reports = keptReports() as Map<string, string>
    for (const [key, target] of Object.entries(pkg.exports)) {
      if (typeof target !== 'object' || target === null) continue
      const module = (await import(pathToFileURL(join(ROOT, (target as { default: string }).default)).href)) as Record<string, unknown>
      const gone = [...CLI_INTERNALS, ...REMOVED, ...(key === '.' ? ROOT_ONLY_REMOVED : [])]
      expect(Object.keys(module).filter((name) => gone.includes(name)), key).toEqual([])
    }
    for (const [file, text] of reports) {
      const gone = [...CLI_INTERNALS, ...REMOVED, ...(file === 'index.api.md' ? ROOT_ONLY_REMOVED : [])]
      for (const name of gone) expect(text, `api/${file}`).not.toMatch(new RegExp(`\\b${name}\\b`))
    }
  })

  it('gives plugin authors the types their hooks take: the events, endpoints and the observe context', async () => {
    const root = keptReports().get('index.api.md') as string
    for (const name of ['GatewayEvents', 'GatewayEventMap', 'Endpoint', 'ObserveContext', 'SecretPath']) {
      expect(root).toMatch(new RegExp(`^export (interface|type) ${name}\\b`, 'm'))
    }
  })
})

describe('the API report (api/)', () => {
  it('is what dist/ publishes: after a change to the surface, run npm run api:update and review the diff', () => {
    const differences = describeDifferences(keptReports(), generateReports()) as string
    if (differences !== '') expect.fail(`The public API differs from the report in api/:\n\n${differences}\n\nIf the change is meant, run npm run api:update and commit api/.`)
  }, 120_000)

  it('shows a change as the lines that differ, with their context', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j'].join('\n')
    const after = ['a', 'b', 'c', 'd', 'E', 'f', 'g', 'h', 'i', 'j', 'k'].join('\n')
    expect(lineDiff(before, after, 1)).toBe(['@@ line 4 @@', '  d', '- e', '+ E', '  f', '@@ line 10 @@', '  j', '+ k'].join('\n'))
    expect(describeDifferences(new Map([['x.api.md', 'a'], ['gone.api.md', 'b']]), new Map([['x.api.md', 'a'], ['new.api.md', 'c']])))
      .toBe('api/new.api.md is missing (a new entry point):\nc\n\napi/gone.api.md reports an entry point package.json no longer exports')
  })
})
