/** The `log` target as a plugin: always there, the default `deliver` of a route. */
import { definePlugin } from '../../../core/plugin-api/plugin.js'
import { logDelivery } from './log-target.js'

/** Delivers answers to the gateway's log. */
export const logPlugin = definePlugin({
  name: 'log',
  targets: ['log'],
  setup: () => ({ name: 'log', deliveryTargets: [logDelivery()] }),
})
