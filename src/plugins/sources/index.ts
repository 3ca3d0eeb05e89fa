/** The built-in sources (GitHub, GitLab, generic HMAC), one import for a set of your own. */
export { githubSource } from './github-signature.js'
export { gitlabSource } from './gitlab-token.js'
export { genericSource } from './generic-signature.js'
export { hmacSignatureVerifier, type HmacSchemeOptions } from './hmac-verifier.js'

/** The three, in the request table's order, as config.yaml composes them. */
export { sourcesPlugin } from './plugin.js'
