/**
 * The App's private key: read from a file (`private_key_file`) or given whole (`private_key`, usually
 * `${GITHUB_APP_PRIVATE_KEY}`), and checked to be an RSA key Node can sign with before GitHub is asked, so a
 * wrong path or a truncated variable is said as such rather than as GitHub's "could not decode the JWT".
 */
import { createPrivateKey } from 'node:crypto'
import { readFile, stat } from 'node:fs/promises'
import { GatewayError } from '../../core/errors.js'

/** Where the key is: a file, or the PEM text itself. */
export type PrivateKeySource = { readonly file: string } | { readonly pem: string }

/** A key type as a sentence says it, with its article: "an EC key", not "a ec key". */
const KEY_TYPES: Readonly<Record<string, string>> = {
  ec: 'an EC key', dsa: 'a DSA key', dh: 'a DH key', ed25519: 'an Ed25519 key', ed448: 'an Ed448 key',
  x25519: 'an X25519 key', x448: 'an X448 key', 'rsa-pss': 'an RSA-PSS key',
}

/**
 * The key's PEM text; throws a GatewayError saying what to fix. The key is never quoted. The message names the
 * file (or the variable's key) once: a startup check already puts the configuration key in front of it.
 */
export async function readPrivateKey(source: PrivateKeySource): Promise<string> {
  const where = 'file' in source ? `the file ${source.file}` : 'platforms.github_app.private_key'
  let pem: string
  if ('file' in source) {
    try {
      pem = await readFile(source.file, 'utf8')
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable'
      throw new GatewayError('ERR_PLUGIN', `the GitHub App's private key could not be read from ${where} (${code}): download a key from the App's settings page (Private keys) and point private_key_file at it`)
    }
  } else {
    // A key passed through a single-line variable often has its newlines written as "\n".
    pem = source.pem.includes('\\n') && !source.pem.includes('\n') ? source.pem.replace(/\\n/g, '\n') : source.pem
  }
  try {
    const key = createPrivateKey(pem)
    const type = key.asymmetricKeyType
    if (type !== 'rsa') throw new Error((type === undefined ? undefined : KEY_TYPES[type]) ?? `a key of type ${type ?? 'unknown'}`)
  } catch (err) {
    const what = err instanceof Error && /^an? /.test(err.message) ? err.message : 'not a PEM private key'
    throw new GatewayError('ERR_PLUGIN', `${where} holds ${what}: GitHub Apps sign with the RSA key (.pem, "-----BEGIN RSA PRIVATE KEY-----") downloaded from the App's settings page`)
  }
  return pem
}

/**
 * A warning when the key file can be read by others than its owner (mode 0644, as a download or `cp` often
 * leaves it): anyone on the machine could then act as the App. Undefined when it is private, or not a file.
 */
export async function keyFileExposure(file: string): Promise<string | undefined> {
  const mode = await stat(file).then((s) => s.mode & 0o777, () => undefined)
  if (mode === undefined || (mode & 0o077) === 0) return undefined
  return `the GitHub App's private key file ${file} is readable by others than its owner (mode 0${mode.toString(8)}): anyone on this machine could act as the App. Run chmod 600 ${file}`
}
