/**
 * The one route registry: static, subscribed and source routes in one place, each part reading its own view.
 * The request flow must never reach a source's route; the dispatcher must find every kind.
 */
import { describe, expect, it } from 'vitest'
import { createRouteRegistry } from '../../src/core/routes/route-registry.js'
import type { DeliveryTarget, Route } from '../../src/core/types.js'
import { testRoute } from '../fixtures/dispatch.js'

const names = (routes: readonly Route[]) => routes.map((r) => r.name)
const targets = new Map<string, DeliveryTarget>([['t', { name: 't', deliver: async () => {} }]])

describe('route registry', () => {
  it('answers webhooks for static and subscribed routes only, admits source events to source routes only, and dispatches all', () => {
    const registry = createRouteRegistry({
      configured: [testRoute({ name: 'pr' })], sources: [testRoute({ name: 'market:btc', source: 'dynamic' })], targets,
    })
    registry.webhooks.setDynamic([testRoute({ name: 'sub', source: 'dynamic' })])
    expect(names(registry.webhooks.list())).toEqual(['pr', 'sub'])
    expect(registry.webhooks.get('market:btc')).toBeUndefined()
    expect(names(registry.sources.list())).toEqual(['market:btc'])
    expect(registry.sources.get('pr')).toBeUndefined()
    expect(names(registry.list())).toEqual(['pr', 'sub', 'market:btc'])
    expect(['pr', 'sub', 'market:btc'].map((name) => registry.get(name)?.name)).toEqual(['pr', 'sub', 'market:btc'])
  })

  it('a static route wins a name clash with a subscription, in every view', () => {
    const registry = createRouteRegistry({ configured: [testRoute({ name: 'pr', prompt: 'static' })] })
    registry.webhooks.setDynamic([testRoute({ name: 'pr', prompt: 'subscribed', source: 'dynamic' })])
    expect([registry.webhooks.get('pr')?.prompt, registry.get('pr')?.prompt]).toEqual(['static', 'static'])
    expect(registry.webhooks.list()).toHaveLength(1)
  })

  it('a source adds only a route that can deliver, and a removed one is gone for the dispatcher too', () => {
    const registry = createRouteRegistry({ configured: [], targets })
    expect(registry.sources.add(testRoute({ name: 'market:eth', deliver: 'nowhere' }))).toMatch(/delivers to "nowhere", which no plugin provides/)
    expect(registry.get('market:eth')).toBeUndefined()
    expect(registry.sources.add(testRoute({ name: 'market:eth', deliver: 't' }))).toBeUndefined()
    expect(registry.get('market:eth')?.name).toBe('market:eth')
    registry.sources.remove('market:eth')
    expect(registry.get('market:eth')).toBeUndefined()
  })

  it('tells onChange every set of webhook routes, the first at once (the secret set learns their secrets)', () => {
    const heard: string[][] = []
    const registry = createRouteRegistry({ configured: [testRoute({ name: 'pr' })], onChange: (routes) => heard.push(names(routes)) })
    registry.webhooks.setDynamic([testRoute({ name: 'sub', source: 'dynamic' })])
    registry.sources.add(testRoute({ name: 'market:x' }))
    expect(heard).toEqual([['pr'], ['pr', 'sub']])
  })
})
