/** `deliver: signal`: the answer posted to Signal. */
export { signalDelivery, SIGNAL_LIMIT, type SignalOptions } from './signal-target.js'
export { signalPlugin } from './plugin.js'
