/**
 * Constant-time credential checks shared by the built-in verifiers. Every comparison goes through
 * `timingSafeEqual` on buffers of equal length, so the time a check takes never tells an attacker how many
 * leading bytes of a forged signature were right.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'

/** A SHA-256 HMAC digest is 32 bytes, written as 64 hex digits. */
const HEX_SHA256 = /^[0-9a-f]{64}$/i

/**
 * Decodes a hex HMAC-SHA256 digest, or returns undefined when the text is not exactly 64 hex digits.
 * Needed because `Buffer.from(text, 'hex')` silently stops at the first bad character instead of failing.
 */
export function parseHexSha256(text: string): Buffer | undefined {
  return HEX_SHA256.test(text) ? Buffer.from(text, 'hex') : undefined
}

/** Compares two byte strings in constant time; buffers of different lengths are simply unequal. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b)
}

/** The raw HMAC-SHA256 of `body` under `secret`, as GitHub and most webhook senders compute it. */
export function hmacSha256(secret: string, body: Uint8Array): Buffer {
  return createHmac('sha256', secret).update(body).digest()
}

/**
 * True when `digest` is the HMAC-SHA256 of `body` under any of `secrets`.
 * Every secret is tried even after a match, so timing does not reveal which rotation slot signed the request;
 * empty secrets are skipped because an HMAC under an empty key is something anyone can compute.
 */
export function matchesAnyHmac(digest: Uint8Array, body: Uint8Array, secrets: readonly string[]): boolean {
  let matched = false
  for (const secret of secrets) {
    if (secret !== '' && bytesEqual(hmacSha256(secret, body), digest)) matched = true
  }
  return matched
}

/**
 * True when the plain `token` equals any of `secrets`, in time independent of where they differ.
 * Both sides are hashed first so the lengths are equal (and the secret's length does not leak).
 */
export function matchesAnyToken(token: string, secrets: readonly string[]): boolean {
  const presented = sha256(token)
  let matched = false
  for (const secret of secrets) {
    if (secret !== '' && timingSafeEqual(sha256(secret), presented)) matched = true
  }
  return matched
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest()
}
