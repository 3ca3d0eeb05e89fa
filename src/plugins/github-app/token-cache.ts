/**
 * Installation tokens, kept until shortly before they expire. GitHub gives each token an `expires_at` (an hour
 * today); a token is used again until {@link REFRESH_MARGIN_MS} before it, by the gateway's clock, so one that a
 * job started with never expires in the middle of its run, and then a new one is minted. Concurrent asks for
 * the same scope share one mint.
 */
import type { Clock } from '../../core/types.js'

/** A token is replaced this long before its expiry: the longest agent run should finish within it. */
export const REFRESH_MARGIN_MS = 10 * 60_000
/** Scopes remembered at most (one per installation, repository and permission set): the oldest goes first. */
const MAX_ENTRIES = 10_000

/** An installation token and when GitHub says it expires. */
export interface InstallationToken {
  /** The token (`ghs_...`): a credential, redacted wherever it could be logged. */
  readonly token: string
  /** ms since the epoch. */
  readonly expiresAt: number
}

/** The cache: `get` answers a fresh token for `key`, minting one with `mint` when it has none that is fresh. */
export interface TokenCache {
  get(key: string, mint: () => Promise<InstallationToken>): Promise<InstallationToken>
}

/** A cache that judges freshness by `clock`, `marginMs` before expiry. */
export function createTokenCache(clock: Clock, marginMs = REFRESH_MARGIN_MS): TokenCache {
  const entries = new Map<string, Promise<InstallationToken>>()
  return {
    async get(key, mint) {
      const held = entries.get(key)
      if (held !== undefined) {
        const token = await held.catch(() => undefined)
        if (token !== undefined && token.expiresAt - marginMs > clock()) return token
        if (entries.get(key) === held) entries.delete(key)
        else return this.get(key, mint) // another ask replaced it meanwhile: share that one
      }
      const minted = mint()
      entries.set(key, minted)
      if (entries.size > MAX_ENTRIES) entries.delete(entries.keys().next().value as string)
      // A failed mint is not kept: the next ask tries again.
      minted.catch(() => {
        if (entries.get(key) === minted) entries.delete(key)
      })
      return minted
    },
  }
}
