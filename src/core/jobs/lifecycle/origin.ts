/**
 * Where a job comes from, as its record keeps it: `link`, the page of the event (a pull request, a merge
 * request, a market), and `hook`, the GitHub webhook that delivered it (`repos/OWNER/NAME/hooks/ID`,
 * `orgs/OWNER/hooks/ID`, or `app/hook` for a GitHub App's). Both come from what a sender wrote, so both are
 * checked here, once, where they are made and again wherever they are used: a link is an https URL without
 * credentials, at most {@link MAX_LINK_LENGTH} characters (never `javascript:` or `data:`), and a hook is one of
 * those shapes over GitHub's own name characters, so it can name a REST path and nothing else.
 */
import type { JobOrigin, JsonObject, JsonValue } from '../../types.js'

/** The longest link kept; a longer one is dropped, not cut (a cut URL points somewhere else). */
export const MAX_LINK_LENGTH = 2048

/**
 * The link as kept (the URL parser's normal form: quotes, spaces and angle brackets percent-encoded), or
 * undefined when `value` is not an https URL with a host and without a user name or password, or is too long.
 */
export function validLink(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > MAX_LINK_LENGTH) return undefined
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return undefined
  }
  if (url.protocol !== 'https:' || url.hostname === '' || url.username !== '' || url.password !== '') return undefined
  return url.href.length > MAX_LINK_LENGTH ? undefined : url.href
}

/** A GitHub login or organisation: letters, digits and inner hyphens, 1 to 39 characters. */
const OWNER = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,37}[A-Za-z0-9])?'
/** A repository name: letters, digits, `.`, `_`, `-`, up to 100 characters (`.` and `..` excluded below). */
const NAME = '[A-Za-z0-9._-]{1,100}'
/** A hook id: digits, at most 19 (a 64-bit integer). */
const ID = '[1-9][0-9]{0,18}'
const HOOK = new RegExp(`^(?:repos/${OWNER}/(?!\\.\\.?/)${NAME}/hooks/${ID}|orgs/${OWNER}/hooks/${ID}|app/hook)$`)

/** `value` when it is a hook as {@link hookOf} makes them, else undefined. */
export function validHook(value: unknown): string | undefined {
  return typeof value === 'string' && HOOK.test(value) ? value : undefined
}

/**
 * The GitHub webhook of a delivery, from its `X-GitHub-Hook-ID` and `X-GitHub-Hook-Installation-Target-Type`
 * headers and its payload's `repository.full_name` or `organization.login`: `repos/OWNER/NAME/hooks/ID` for a
 * repository's hook, `orgs/OWNER/hooks/ID` for an organisation's, `app/hook` for a GitHub App's; undefined when
 * a part is missing or not as GitHub writes it. The value is the hook's REST path (its deliveries are
 * `GET /<hook>/deliveries`).
 */
export function hookOf(headers: Readonly<Record<string, string>>, payload: JsonObject): string | undefined {
  const target = headers['x-github-hook-installation-target-type']
  if (target === 'integration') return 'app/hook'
  const id = headers['x-github-hook-id']
  if (target === 'repository') return validHook(`repos/${text(field(payload, 'repository', 'full_name'))}/hooks/${id ?? ''}`)
  if (target === 'organization') return validHook(`orgs/${text(field(payload, 'organization', 'login'))}/hooks/${id ?? ''}`)
  return undefined
}

/** Both parts of `origin` checked: what is not valid is left out. */
export function checkedOrigin(origin: JobOrigin | undefined): { link: string | undefined; hook: string | undefined } {
  return { link: validLink(origin?.link), hook: validHook(origin?.hook) }
}

/** `payload[a][b]`, or undefined when a level is missing or not an object. */
export function field(payload: JsonObject, a: string, b: string): JsonValue | undefined {
  const outer = payload[a]
  return typeof outer === 'object' && outer !== null && !Array.isArray(outer) ? outer[b] : undefined
}

function text(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : ''
}
