/**
 * The contract every {@link Verifier} honours, run by each implementation's own test file.
 */
import { describe, expect, it } from 'vitest'
import type { RawRequest, Verifier, VerifyResult } from '../core/types.js'

/** Options of {@link verifierContract}. */
export interface VerifierContractOptions {
  /** False for schemes that do not sign the body (a plain token): skips the one-byte-change test. */
  readonly signsBody?: boolean
  /** The body to sign (real payload bytes of the sender); a small pull-request payload by default. */
  readonly body?: Uint8Array
  /** Other headers a genuine request carries, that `sign` signs too (a Standard Webhooks id and timestamp). */
  readonly headers?: Readonly<Record<string, string>>
}

/** A small pull-request payload with a multi-byte title, as a sender's raw bytes. */
const SAMPLE = Buffer.from(JSON.stringify({
  action: 'opened', number: 2, pull_request: { title: 'Ünïcode title — with “quotes”', body: 'line\nbreak' },
  repository: { full_name: 'octo/repo' },
}))

/**
 * Runs the verifier contract against `makeVerifier()`; `sign(body, secret)` produces the header value a
 * genuine sender would put in `verifier.header`.
 */
export function verifierContract(
  name: string,
  makeVerifier: () => Verifier,
  sign: (body: Uint8Array, secret: string) => string,
  options: VerifierContractOptions = {},
): void {
  const body = options.body ?? SAMPLE
  const secret = 'It’s a Secret to Everybody'

  describe(`${name} (Verifier contract)`, () => {
    const verifier = makeVerifier()
    const request = (headerValue: string | undefined, raw: Uint8Array = body): RawRequest => ({
      method: 'POST',
      path: '/webhooks/test',
      headers: { ...options.headers, ...(headerValue === undefined ? {} : { [verifier.header]: headerValue }) },
      body: raw,
    })
    const verify = async (headerValue: string | undefined, secrets: readonly string[], raw?: Uint8Array) =>
      await verifier.verify(request(headerValue, raw), secrets)
    const expectFailure = (result: VerifyResult, ...hidden: string[]) => {
      expect(result.ok).toBe(false)
      if (!result.ok) expect(result.reason).toMatch(/\S/)
      const shown = JSON.stringify(result)
      for (const text of [secret, ...hidden]) expect(shown).not.toContain(text)
    }

    it('has a name and a lower-case header', () => {
      expect(verifier.name).toMatch(/\S/)
      expect(verifier.header).toBe(verifier.header.toLowerCase())
    })

    it('passes a request signed with the secret', async () => {
      const result = await verify(sign(body, secret), [secret])
      expect(result.ok).toBe(true)
      if (result.ok) expect(result.scheme).toMatch(/\S/)
    })

    it('fails a request signed with another secret', async () => {
      const value = sign(body, 'another secret')
      expectFailure(await verify(value, [secret]), value)
    })

    it('fails a request without the header, or with an empty one', async () => {
      expectFailure(await verify(undefined, [secret]))
      expectFailure(await verify('', [secret]))
    })

    it('fails a truncated header value', async () => {
      const value = sign(body, secret)
      expectFailure(await verify(value.slice(0, -1), [secret]), value)
      expectFailure(await verify(value.slice(0, Math.ceil(value.length / 2)), [secret]), value)
    })

    it('fails when the route has no secrets, or only empty ones', async () => {
      expectFailure(await verify(sign(body, secret), []))
      expectFailure(await verify(sign(body, ''), ['']))
    })

    it('passes with any secret of a rotation list', async () => {
      const secrets = ['previous secret', secret]
      expect((await verify(sign(body, secret), secrets)).ok).toBe(true)
      expect((await verify(sign(body, 'previous secret'), secrets)).ok).toBe(true)
      expectFailure(await verify(sign(body, 'third secret'), secrets), 'previous secret')
    })

    if (options.signsBody !== false) {
      it('fails a body that differs in one byte from the signed one', async () => {
        const tampered = Buffer.from(body)
        const at = tampered.length - 2
        tampered.writeUInt8(tampered.readUInt8(at) ^ 1, at)
        expectFailure(await verify(sign(body, secret), [secret], tampered))
      })

      it('verifies the raw bytes, not a re-serialisation of the JSON', async () => {
        const pretty = Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8')), null, 2))
        expect((await verify(sign(pretty, secret), [secret], pretty)).ok).toBe(true)
        expectFailure(await verify(sign(pretty, secret), [secret], body))
      })
    }

    it('answers garbage header values with a failure, never a throw', async () => {
      const garbage = ['sha1=abc', 'sha256=', 'sha256=zz', '=', ' ', 'x'.repeat(10_000), '\u0000', 'ü'.repeat(64)]
      for (const value of garbage) expectFailure(await verify(value, [secret]))
    })
  })
}
