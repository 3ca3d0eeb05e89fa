/**
 * The admin commands' way to the state a config names, without running a gateway: the plugin `state.driver`
 * selects is set up (never its worker), so `hookpilot jobs` and the subscription commands read and change the
 * same store a running `hookpilot serve` uses: the SQLite file, or the Redis every instance shares.
 */
import { compose } from '../core/gateway/compose.js'
import type { HookpilotConfig } from '../core/config/schema.js'
import type { StateBackend } from '../core/jobs/lifecycle/state-backend.js'
import type { GatewayPlugin } from '../core/plugin-api/gateway-plugin.js'
import { silentLogger } from '../core/log/logger.js'
import { createSecretSet } from '../core/secrets/secret-set.js'
import { fileSubscriptionStore, subscriptionsPath, type SubscriptionStore } from '../core/routes/subscriptions/index.js'
import { BUILTIN_PLUGINS } from '../plugins/builtins.js'

/** A state backend's parts, opened for an admin command; `close` when done. */
export interface OpenState {
  readonly state: StateBackend
  /** The backend's own subscription store (Redis), if it keeps them. */
  readonly subscriptions: SubscriptionStore | undefined
  close(): Promise<void>
}

/**
 * Sets up the state plugin of `config` (paths from `baseDir`) and opens it for an admin command (no worker, no
 * recovery: safe beside a running gateway), unless `wanted` says not to.
 */
export async function openState(config: HookpilotConfig, baseDir: string, wanted: (plugin: GatewayPlugin) => boolean = () => true): Promise<OpenState | undefined> {
  const { scope, plugins } = await compose(config, { definitions: BUILTIN_PLUGINS, plugins: [] }, {
    baseDir, log: silentLogger, secrets: createSecretSet(), routes: [], role: 'admin', only: (d) => d.section === 'state',
  })
  try {
    const plugin = plugins.findLast((p) => p.state)
    if (!plugin?.state || !wanted(plugin)) {
      await scope.dispose()
      return undefined
    }
    const { state } = plugin
    await state.start?.({ log: silentLogger, admin: true })
    return {
      state,
      subscriptions: plugin.subscriptions,
      async close() {
        await state.close?.()
        await scope.dispose()
      },
    }
  } catch (err) {
    await scope.dispose()
    throw err
  }
}

/** A subscription store opened for a command; `close` when done. */
export interface OpenSubscriptions {
  readonly store: SubscriptionStore
  close(): Promise<void>
}

/**
 * The subscriptions of `config`: in the state backend when it keeps them (Redis, opened here), else in the file
 * beside the config (`configDir`).
 */
export async function openSubscriptions(config: HookpilotConfig, configDir: string): Promise<OpenSubscriptions> {
  const opened = await openState(config, configDir, (plugin) => plugin.subscriptions !== undefined)
  if (opened?.subscriptions) return { store: opened.subscriptions, close: () => opened.close() }
  await opened?.close()
  const path = subscriptionsPath(config, configDir) ?? configDir
  return { store: fileSubscriptionStore(path), close: async () => {} }
}
