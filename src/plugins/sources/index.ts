/** The built-in sources (GitHub, GitLab, generic HMAC, Standard Webhooks), one import for a set of your own. */
export { githubSource } from './github-signature.js'
export { gitlabSource, type GitlabSourceOptions } from './gitlab-token.js'
export { genericSource } from './generic-signature.js'
export { hmacSignatureVerifier, type HmacSchemeOptions } from './hmac-verifier.js'
// verifyStandardWebhook: for a source of your own over another Standard Webhooks sender (its own event header).
export { standardWebhooksSource, verifyStandardWebhook, STANDARD_WEBHOOKS_TOLERANCE_SECONDS, type StandardWebhooksOptions } from './standard-webhooks.js'

/** The four, in the request table's order, as config.yaml composes them. */
export { sourcesPlugin } from './plugin.js'
