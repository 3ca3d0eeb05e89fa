/**
 * The market source's subscribed watches are started (their routes added) before `connect`'s promise resolves,
 * which the gateway waits for before its queue leases (docs/market-alerts.md, "Adding a watch without a
 * restart"): a stored job of a subscribed watch finds its route after a restart.
 */
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { fileSubscriptionStore } from '../../src/core/routes/subscriptions/index.js'
import { createLogger } from '../../src/core/log/logger.js'
import { followSubscribedWatches } from '../../src/plugins/sources/market/subscribed.js'

describe('followSubscribedWatches', () => {
  it('ready resolves once the stored watches are started, without waiting for a change', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hookpilot-watches-'))
    const path = join(dir, '.subscriptions.json')
    await writeFile(path, JSON.stringify({ version: 1, subscriptions: {}, watches: { live: { market: 'fed-cut', when: [{ resolved: true }] } } }))
    const started: string[] = []
    const following = followSubscribedWatches({
      store: fileSubscriptionStore(path, { pollMs: 60_000 }),
      configured: new Set(),
      log: createLogger({ level: 'error' }),
      start(name) {
        started.push(name)
        return async () => {}
      },
    })
    expect(started).toEqual([]) // the store is read asynchronously
    await following.ready
    expect(started).toEqual(['live'])
    await following.stop()
  })
})
