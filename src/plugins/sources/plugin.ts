/**
 * The built-in sources, in the request table's order: GitHub's `X-Hub-Signature-256` decides when present,
 * then GitLab's `X-Gitlab-Token`, then the generic `X-Webhook-Signature`. A plugin's `sources` replace the set.
 */
import { definePlugin } from '../../core/plugin-api/plugin.js'
import { genericSource } from './generic-signature.js'
import { githubSource } from './github-signature.js'
import { gitlabSource } from './gitlab-token.js'

/** GitHub, GitLab and generic HMAC senders. */
export const sourcesPlugin = definePlugin({
  name: 'sources',
  setup: () => ({ name: 'sources', sources: [githubSource(), gitlabSource(), genericSource()] }),
})
