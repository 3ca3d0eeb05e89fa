/**
 * The GitLab users the target asks about: its token's own (notes and discussions are the gateway's only when this
 * user wrote them; what it wrote never commands it), asked once per gateway and again after a failed ask; and
 * whether an account is a bot (a merge request's author, for a policy's `skip_bots`), kept for a bounded number
 * of accounts, since an account's kind does not change.
 */
import { DeliveryError } from '../../../core/errors.js'
import { field, textField } from '../../shared/json-body.js'
import { TARGET, type GitlabHttp } from './gitlab-http.js'

/** The token's own user. */
export interface GitlabUser {
  readonly id: number
  readonly username: string
}

/** Accounts whose kind is kept. */
const KEPT_ACCOUNTS = 1000

/** The users a target asks GitLab about (see the module's comment). */
export interface GitlabUsers {
  /** The token's own user. */
  me(signal: AbortSignal): Promise<GitlabUser>
  /** Whether account `id` is a bot (GitLab's user `bot` flag: project and group access tokens' users, service accounts). */
  isBot(id: number, signal: AbortSignal): Promise<boolean>
}

/** The users of the GitLab `http` reaches. */
export function gitlabUsers(http: GitlabHttp): GitlabUsers {
  let me: Promise<GitlabUser> | undefined
  const bots = new Map<number, Promise<boolean>>()

  return {
    me(signal) {
      me ??= (async () => {
        const body = await http.ok({ method: 'GET', path: '/user', doing: 'read the token\'s user' }, signal)
        const id = field(body, 'id')
        if (typeof id !== 'number') throw new DeliveryError(TARGET, 'GitLab\'s GET /user named no user id; is platforms.gitlab.api_url the API root (ending in /api/v4)?', { retryable: true })
        return { id, username: textField(body, 'username') ?? String(id) }
      })()
      return me.catch((error: unknown) => {
        me = undefined
        throw error
      })
    },
    isBot(id, signal) {
      let bot = bots.get(id)
      if (bot === undefined) {
        bot = http.ok({ method: 'GET', path: `/users/${id}`, doing: `read whether user ${id} is a bot` }, signal).then((body) => field(body, 'bot') === true)
        bots.set(id, bot)
        bot.catch(() => bots.delete(id))
        if (bots.size > KEPT_ACCOUNTS) bots.delete(bots.keys().next().value!)
      }
      return bot
    },
  }
}
