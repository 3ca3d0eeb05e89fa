/** `status_page:`: a read-only jobs page on the gateway's listener, as a plugin and as a function. */
export { statusPage, type StatusPage, type StatusPageOptions } from './status-page.js'
export { jobsSnapshot, type JobsSnapshot, type JobLine } from './snapshot.js'
export { statusPagePlugin } from './plugin.js'
