/**
 * {@link CommentApi} through the gh CLI: `gh pr comment` for a plain comment, `gh api` (REST, the body as JSON
 * on stdin) for sticky mode, `gh pr view` for the head. gh posts as whoever it is logged in as.
 */
import { DeliveryError } from '../../../core/errors.js'
import { PER_PAGE, type CommentApi, type CommentRow } from './comment-api.js'
import { ghOutput, runGh, type GhRunner } from './gh.js'

const SHA = /^[0-9a-f]{7,64}$/i

/** The pull request `gh.repo`#`gh.prNumber`, through gh. */
export function ghComments(gh: GhRunner): CommentApi {
  return {
    login: () => ghLogin(gh),
    async listPage(page, marker) {
      // Each comment comes back as one short line (id, author, does it start with the marker), not its whole body.
      const filter = `.[] | [.id, .user.login, ((.body // "") | startswith(${JSON.stringify(marker)}))] | @json`
      const endpoint = `repos/${gh.repo}/issues/${gh.prNumber}/comments?per_page=${PER_PAGE}&page=${page}`
      const stdout = await ghOutput(gh, ['api', endpoint, '--jq', filter], { doing: 'list the comments', repeatable: true })
      return stdout.split('\n').filter((line) => line.trim() !== '').map(parseRow)
    },
    async edit(id, body) {
      const args = ['api', '--method', 'PATCH', `repos/${gh.repo}/issues/comments/${id}`, '--input', '-', '--jq', '.html_url']
      const outcome = await runGh(gh, args, { doing: `edit comment ${id}`, repeatable: true }, JSON.stringify({ body }))
      if (outcome.ok) return outcome.stdout.trim()
      if (outcome.notFound) return undefined
      throw outcome.error
    },
    async create(body) {
      const args = ['api', '--method', 'POST', `repos/${gh.repo}/issues/${gh.prNumber}/comments`, '--input', '-', '--jq', '.html_url']
      return (await ghOutput(gh, args, { doing: 'create the comment', repeatable: true }, JSON.stringify({ body }))).trim()
    },
    async post(body) {
      const args = ['pr', 'comment', gh.prNumber, '--repo', gh.repo, '--body-file', '-']
      return (await ghOutput(gh, args, { repeatable: false }, body)).trim().slice(0, 200)
    },
    async head() {
      const args = ['pr', 'view', gh.prNumber, '--repo', gh.repo, '--json', 'headRefOid']
      const current = headRefOid(await ghOutput(gh, args, { doing: 'read the pull request head', repeatable: true }))
      if (current === undefined) throw new DeliveryError('github_comment', 'gh pr view --json headRefOid printed no head SHA, so the head could not be checked')
      return current
    },
  }
}

/**
 * The login gh runs as (`gh api user`). An installation token given to gh cannot ask; such a setup names its
 * account in `platforms.github.login` (`my-app[bot]`), or configures `platforms.github_app`.
 */
async function ghLogin(gh: GhRunner): Promise<string> {
  const outcome = await runGh(gh, ['api', 'user', '--jq', '.login'], { doing: 'learn which account gh runs as', repeatable: true })
  if (outcome.ok && outcome.stdout.trim() !== '') return outcome.stdout.trim()
  if (!outcome.ok && (outcome.error.retryable || !/\(HTTP 403\)/.test(outcome.error.message))) throw outcome.error
  throw new DeliveryError('github_comment', 'sticky mode needs the account gh posts as, and `gh api user` could not say (a GitHub App token cannot): set platforms.github.login, e.g. "my-app[bot]"')
}

function parseRow(line: string): CommentRow {
  let row: unknown
  try {
    row = JSON.parse(line)
  } catch {
    // A bare "Unexpected token 'h' ... is not valid JSON" named neither gh nor the step.
    const start = line.trim().slice(0, 40)
    throw new DeliveryError('github_comment', `gh api (to list the comments, in sticky mode) printed a line that is not JSON ("${start}${line.trim().length > 40 ? '…' : ''}"): is platforms.github.gh_path the real gh CLI?`)
  }
  if (!Array.isArray(row) || typeof row[0] !== 'number' || !Number.isSafeInteger(row[0])) {
    throw new DeliveryError('github_comment', 'gh listed the comments in a shape this version does not know', { retryable: false })
  }
  return { id: String(row[0]), login: typeof row[1] === 'string' ? row[1] : '', marked: row[2] === true }
}

function headRefOid(stdout: string): string | undefined {
  try {
    const { headRefOid } = JSON.parse(stdout) as { headRefOid?: unknown }
    return typeof headRefOid === 'string' && SHA.test(headRefOid) ? headRefOid : undefined
  } catch {
    return undefined
  }
}
