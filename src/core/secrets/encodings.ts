/**
 * The forms a secret takes when a program encodes it to slip it past a redactor that knows only the
 * verbatim value: a prompt-injected agent posted a route secret base64-encoded and reversed (issue 25, item
 * 17). Each form below is redacted wherever the secret is: URL-encoded (upper- and lower-case escapes),
 * reversed, hex (lower- and upper-case), and base64, standard and URL-safe, with and without padding, on its
 * own and inside a longer base64 text (its three alignments, less the characters its neighbours share).
 *
 * What no list of forms catches is said in docs/security.md: a secret split, spaced out, encrypted or encoded
 * twice passes; the only real protection is that the agent cannot read the secret at all (`agent.user`).
 */

/** Inside a longer base64 text, a part shorter than this is not redacted: it would match ordinary text by chance. */
const MIN_EMBEDDED_LENGTH = 8

/** Every form of `secret` a redactor replaces, the verbatim value first; no duplicates. */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8')
  const url = encodeURIComponent(secret)
  const hex = bytes.toString('hex')
  const forms = [secret, url, url.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()), [...secret].reverse().join(''), hex, hex.toUpperCase()]
  for (const standard of base64Forms(bytes)) forms.push(standard, toUrlSafe(standard))
  return [...new Set(forms)]
}

/** The secret's base64 alone (padded and not) and the parts of it that stay the same inside longer base64 text. */
function base64Forms(bytes: Buffer): string[] {
  const alone = bytes.toString('base64')
  const forms = [alone, alone.replace(/=+$/, '')]
  // Preceded by 0, 1 or 2 bytes, the secret starts at a different place in base64's 3-byte groups. The
  // characters that also hold bits of a neighbour (before: 0, 2 or 3 of them; after: 1 unless it ends a
  // group) differ from text to text; the ones between are the same wherever the secret is.
  for (const before of [0, 1, 2]) {
    const encoded = Buffer.concat([Buffer.alloc(before), bytes]).toString('base64').replace(/=+$/, '')
    const skip = [0, 2, 3][before] ?? 0
    const cut = (before + bytes.length) % 3 === 0 ? 0 : 1
    const core = encoded.slice(skip, encoded.length - cut)
    if (core.length >= MIN_EMBEDDED_LENGTH) forms.push(core)
  }
  return forms
}

function toUrlSafe(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}
