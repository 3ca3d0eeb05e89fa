/**
 * The client's address for request log lines: the socket's peer, or, behind a reverse proxy the operator
 * trusts (`trust_proxy`), the address the proxies put in `X-Forwarded-For`, decided as Express does with the
 * same library (proxy-addr): `true` believes the left-most address, a list of addresses and subnets believes
 * the header only through proxies on that list, `false` never.
 */
import { isIP } from 'node:net'
import type { IncomingMessage } from 'node:http'
import proxyAddr from 'proxy-addr'
import type { TrustProxy } from '../config/trust-list.js'

/** Finds the client's address of one request. */
export type ClientAddress = (remoteAddress: string | undefined, headers: Readonly<Record<string, string>>) => string | undefined

/** The resolver for a `trust_proxy` setting; throws a TypeError naming an entry that is no address or subnet. */
export function clientAddressResolver(trust: TrustProxy): ClientAddress {
  if (trust === false) return (remote) => remote && unmapped(remote)
  const trusted = trust === true ? () => true : proxyAddr.compile([...trust])
  return (remote, headers) => {
    if (remote === undefined) return undefined
    const forwarded = headers['x-forwarded-for']
    if (forwarded === undefined) return unmapped(remote)
    // proxy-addr reads a request; these two fields are all it reads.
    const address = proxyAddr({ socket: { remoteAddress: remote }, headers: { 'x-forwarded-for': forwarded } } as unknown as IncomingMessage, trusted)
    // Whatever a trusted hop wrote, only an address is logged as one.
    return unmapped(isIP(address) === 0 ? remote : address)
  }
}

/**
 * An IPv4 client as IPv4: a listener on a dual-stack socket (`::`) sees `::ffff:127.0.0.1`, which is the same
 * client as `127.0.0.1` and was logged as another.
 */
function unmapped(address: string): string {
  const v4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)?.[1]
  return v4 ?? address
}

/** Whether a connection's peer is a proxy `trust` names (it speaks for other clients): never for `false`, always for `true`. */
export function trustedProxy(trust: TrustProxy): (address: string) => boolean {
  if (typeof trust === 'boolean') return () => trust
  const trusted = proxyAddr.compile([...trust])
  return (address) => trusted(address, 0)
}
