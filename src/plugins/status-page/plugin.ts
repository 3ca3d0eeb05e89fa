/** `status_page: { enabled, token }`: a read-only page of the gateway's jobs, on its own listener. */
import * as v from 'valibot'
import { definePlugin } from '../../core/plugin-api/plugin.js'
import { boolean, text } from '../../core/config/schema-kit.js'
import type { StateBackend } from '../../core/jobs/lifecycle/state-backend.js'

/** The status page plugin; off unless `status_page.enabled: true`, and then only with a token. */
export const statusPagePlugin = definePlugin({
  name: 'status-page',
  section: 'status_page',
  secrets: ['token'],
  options: v.pipe(
    v.object({ enabled: v.optional(boolean, false), token: v.optional(text) }),
    v.check((o) => !o.enabled || (o.token?.trim().length ?? 0) >= 16, 'status_page.enabled needs a token of at least 16 characters (from the environment, e.g. HOOKPILOT_STATUS_TOKEN): the page shows every job\'s route, event and reason'),
  ),
  async setup(options, ctx) {
    if (!options.enabled || options.token === undefined) return { name: 'status-page' }
    const { statusPage } = await import('./status-page.js')
    let state: StateBackend | undefined
    const page = statusPage({ token: options.token, now: ctx.clock, jobs: () => state?.jobs })
    return {
      name: 'status-page',
      endpoints: page.endpoints,
      observe: (_events, observed) => {
        state = observed.state
      },
    }
  },
})
