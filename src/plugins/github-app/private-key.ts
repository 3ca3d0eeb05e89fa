/**
 * The App's private key: read from a file (`private_key_file`) or given whole (`private_key`, usually
 * `${GITHUB_APP_PRIVATE_KEY}`), and checked to be an RSA key Node can sign with before GitHub is asked, so a
 * wrong path or a truncated variable is said as such rather than as GitHub's "could not decode the JWT".
 */
import { createPrivateKey } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { GatewayError } from '../../core/errors.js'

/** Where the key is: a file, or the PEM text itself. */
export type PrivateKeySource = { readonly file: string } | { readonly pem: string }

/** The key's PEM text; throws a GatewayError naming the configuration key to fix. The key is never quoted. */
export async function readPrivateKey(source: PrivateKeySource): Promise<string> {
  const where = 'file' in source ? `platforms.github_app.private_key_file (${source.file})` : 'platforms.github_app.private_key'
  let pem: string
  if ('file' in source) {
    try {
      pem = await readFile(source.file, 'utf8')
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable'
      throw new GatewayError('ERR_PLUGIN', `the GitHub App's private key could not be read from ${where}: ${code}; download a key from the App's settings page (Private keys) and point private_key_file at it`)
    }
  } else {
    // A key passed through a single-line variable often has its newlines written as "\n".
    pem = source.pem.includes('\\n') && !source.pem.includes('\n') ? source.pem.replace(/\\n/g, '\n') : source.pem
  }
  try {
    const key = createPrivateKey(pem)
    if (key.asymmetricKeyType !== 'rsa') throw new Error(`a ${key.asymmetricKeyType ?? 'non-RSA'} key`)
  } catch (err) {
    const what = err instanceof Error && err.message.startsWith('a ') ? err.message : 'not a PEM private key'
    throw new GatewayError('ERR_PLUGIN', `${where} holds ${what}: GitHub Apps sign with the RSA key (.pem, "-----BEGIN RSA PRIVATE KEY-----") downloaded from the App's settings page`)
  }
  return pem
}
