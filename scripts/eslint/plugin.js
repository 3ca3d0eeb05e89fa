/**
 * The project's own ESLint rules, loaded by eslint.config.js as the local plugin `hookpilot`: local rather than
 * eslint-plugin-import-x, which is not installed, because both checks are a few dozen lines over TypeScript's own
 * import scanner and the order they enforce is this project's.
 */
import { layerOrder } from './layer-order.js'
import { noCycle } from './no-cycle.js'

/** @type {import('eslint').ESLint.Plugin} */
export const hookpilotRules = {
  meta: { name: 'hookpilot-local' },
  rules: { 'layer-order': layerOrder, 'no-cycle': noCycle },
}
