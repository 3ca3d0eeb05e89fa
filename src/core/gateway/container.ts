/**
 * The only module that knows tsyringe. Each gateway gets a child container of its own (never the global one),
 * so two gateways in one process share nothing: not their plugins, and not the resources their plugins share
 * (one database connection for a backend's queue, de-dup store and subscriptions), which live in the child
 * container, are created once, and are disposed when the gateway closes.
 */
import 'reflect-metadata'
import { container as rootContainer, type DependencyContainer } from 'tsyringe'
import { GatewayError } from '../errors.js'
import type { Resources } from '../plugin-api/definition.js'
import type { Token } from './tokens.js'

/** A typed view of one gateway's container. */
export interface Scope {
  /** Fills a one-implementation slot; a later call replaces the earlier value. */
  provide<T>(token: Token<T>, value: T): void
  /** Adds to a many-implementation slot, after what is there. */
  add<T>(token: Token<T, true>, value: T): void
  /** Whether a plugin filled a one-implementation slot. */
  has<T>(token: Token<T>): boolean
  /** The value of a one-implementation slot; throws ERR_PLUGIN when no plugin filled it. */
  resolve<T>(token: Token<T>): T
  /** Every value of a many-implementation slot, in registration order. */
  resolveAll<T>(token: Token<T, true>): T[]
  /** Resources shared by this gateway's plugins. */
  readonly resources: Resources
  /** Disposes every resource (last created first) and the container. */
  dispose(): Promise<void>
}

/** Creates an isolated scope for one gateway. */
export function createScope(): Scope {
  const container: DependencyContainer = rootContainer.createChildContainer()
  const put = <T>(token: Token<T, boolean>, value: T) => {
    container.registerInstance(token.key, value)
  }
  const disposers: Array<() => void | Promise<void>> = []
  return {
    resources: {
      get<T>(key: string, create: () => T, dispose?: (value: T) => void | Promise<void>): T {
        const token = `hookpilot.resource:${key}`
        // Only this gateway's container counts: a resource of the same name in another gateway is another one.
        if (!container.isRegistered(token, false)) {
          const value = create()
          container.registerInstance(token, value)
          if (dispose) disposers.push(() => dispose(value))
        }
        return container.resolve<T>(token)
      },
    },
    async dispose() {
      for (const dispose of disposers.splice(0).reverse()) await dispose()
      await container.dispose()
    },
    provide: put,
    add: put,
    has: (token) => container.isRegistered(token.key),
    resolve<T>(token: Token<T>): T {
      if (!container.isRegistered(token.key)) {
        throw new GatewayError('ERR_PLUGIN', `Nothing provides ${token.key.description}: pass a plugin that does (the built-ins provide every slot).`)
      }
      return container.resolve<T>(token.key)
    },
    resolveAll<T>(token: Token<T, true>): T[] {
      return container.isRegistered(token.key) ? container.resolveAll<T>(token.key) : []
    },
  }
}
