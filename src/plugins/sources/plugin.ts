/**
 * The built-in sources, in the request table's order: GitHub's `X-Hub-Signature-256` decides when present,
 * then GitLab's `X-Gitlab-Token` (or its signing token's `webhook-signature` beside `X-Gitlab-Event`), then the
 * generic `X-Webhook-Signature`, then any other Standard Webhooks sender's `webhook-signature`. A plugin's
 * `sources` replace the set.
 */
import { definePlugin } from '../../core/plugin-api/plugin.js'
import { genericSource } from './generic-signature.js'
import { githubSource } from './github-signature.js'
import { gitlabSource } from './gitlab-token.js'
import { standardWebhooksSource } from './standard-webhooks.js'

/** GitHub, GitLab, generic HMAC and Standard Webhooks senders. */
export const sourcesPlugin = definePlugin({
  name: 'sources',
  setup: (_options, ctx) => ({
    name: 'sources',
    // The gateway's clock: a signature's timestamp is checked against the time the rest of the gateway keeps.
    sources: [githubSource(), gitlabSource({ now: ctx.clock }), genericSource(), standardWebhooksSource({ now: ctx.clock })],
  }),
})
