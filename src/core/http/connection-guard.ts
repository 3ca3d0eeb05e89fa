/**
 * What keeps one client from holding the listener: connections that never send a byte are closed after a
 * short wait (a sender has `headers_timeout_seconds`; a silent socket has only `first_byte_timeout_seconds`),
 * and one client address holds at most `max_connections_per_client` at a time, so it cannot fill
 * `max_connections` alone and shut out the deliveries and probes of everyone else (issue 25, item 18: ~100
 * idle connections a second from one address used to cost 60–80 % of deliveries). A proxy `trust_proxy`
 * names speaks for many clients and is not limited here (it limits its own clients); an IPv6 client is
 * counted by its /64, which one host usually holds whole.
 */
import { isIPv6, type Socket } from 'node:net'

/** What the guard is set to. */
export interface ConnectionGuardOptions {
  /** Most connections one client address (an IPv6 /64) holds at once; past it, new ones are closed at once. */
  readonly maxPerClient: number
  /** A connection that has sent no byte after this long is closed. */
  readonly firstByteTimeoutMs: number
  /** True for a peer that speaks for other clients (a reverse proxy `trust_proxy` names): not limited. */
  readonly isTrustedProxy: (address: string) => boolean
  /** Told of each connection closed, and why (to be logged throttled: anyone can open connections). */
  readonly onClosed: (why: 'max_connections_per_client' | 'first_byte_timeout_seconds', address: string | undefined) => void
}

/** Admits or closes each new connection. */
export interface ConnectionGuard {
  /** Takes a new connection in: false when it was closed at once (its client holds too many). */
  admit(socket: Socket): boolean
}

/** Creates a guard; see the module comment. */
export function connectionGuard(options: ConnectionGuardOptions): ConnectionGuard {
  const held = new Map<string, number>()
  return {
    admit(socket) {
      const address = socket.remoteAddress
      const key = address === undefined || options.isTrustedProxy(address) ? undefined : clientKey(address)
      if (key !== undefined) {
        const count = held.get(key) ?? 0
        if (count >= options.maxPerClient) {
          socket.destroy()
          options.onClosed('max_connections_per_client', address)
          return false
        }
        held.set(key, count + 1)
      }
      // bytesRead counts what node's parser consumed too, so the first byte is seen without reading the socket.
      const silent = setTimeout(() => {
        if (socket.bytesRead > 0 || socket.destroyed) return
        socket.destroy()
        options.onClosed('first_byte_timeout_seconds', address)
      }, options.firstByteTimeoutMs)
      silent.unref()
      socket.once('close', () => {
        clearTimeout(silent)
        if (key === undefined) return
        const left = (held.get(key) ?? 1) - 1
        if (left <= 0) held.delete(key)
        else held.set(key, left)
      })
      return true
    },
  }
}

/** The address one client is counted by: IPv4 as is (also when IPv4-mapped), IPv6 by its first 64 bits. */
export function clientKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped?.[1] !== undefined) return mapped[1]
  if (!isIPv6(address)) return address
  const [head = '', tail = ''] = (address.split('%')[0] ?? '').split('::')
  const left = head === '' ? [] : head.split(':')
  const right = address.includes('::') ? (tail === '' ? [] : tail.split(':')) : []
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`
}
