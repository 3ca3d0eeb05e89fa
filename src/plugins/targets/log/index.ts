/** `deliver: log`: the answer written to the gateway's log. */
export { logDelivery } from './log-target.js'
export { logPlugin } from './plugin.js'
