/**
 * `platforms.webhook.extra.trust_proxy`, as config.yaml gives it: the schema checks a list here, and
 * http/client-address.ts compiles it for each request. The check lives in config/ because the schema may not
 * import http/.
 */
import proxyAddr from 'proxy-addr'
import { messageOf } from '../errors.js'

/** `platforms.webhook.extra.trust_proxy`. */
export type TrustProxy = boolean | readonly string[]

/** Why `entries` is no valid trust list, or undefined when it is. */
export function trustListProblem(entries: readonly string[]): string | undefined {
  try {
    proxyAddr.compile([...entries])
    return undefined
  } catch (err) {
    return messageOf(err)
  }
}
