/** The built-in sources (GitHub, GitLab, generic HMAC), one import for a set of your own. */
export { githubSource } from '../github-signature/index.js'
export { gitlabSource } from '../gitlab-token/index.js'
export { genericSource } from '../generic-signature/index.js'
export { hmacSignatureVerifier, type HmacSchemeOptions } from '../shared/hmac-verifier.js'

/** The three, in the request table's order, as config.yaml composes them. */
export { sourcesPlugin } from './plugin.js'
