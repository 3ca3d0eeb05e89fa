/**
 * The only module that knows tsyringe. Each gateway gets a child container of its own (never the global one),
 * so two gateways in one process share nothing.
 */
import 'reflect-metadata'
import { container as rootContainer, type DependencyContainer } from 'tsyringe'
import { GatewayError } from './errors.js'
import type { Token } from './tokens.js'

/** A typed view of one gateway's container. */
export interface Scope {
  /** Fills a one-implementation slot; a later call replaces the earlier value. */
  provide<T>(token: Token<T>, value: T): void
  /** Adds to a many-implementation slot, after what is there. */
  add<T>(token: Token<T, true>, value: T): void
  /** The value of a one-implementation slot; throws ERR_PLUGIN when no plugin filled it. */
  resolve<T>(token: Token<T>): T
  /** Every value of a many-implementation slot, in registration order. */
  resolveAll<T>(token: Token<T, true>): T[]
}

/** Creates an isolated scope for one gateway. */
export function createScope(): Scope {
  const container: DependencyContainer = rootContainer.createChildContainer()
  const put = <T>(token: Token<T, boolean>, value: T) => {
    container.registerInstance(token.key, value)
  }
  return {
    provide: put,
    add: put,
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
