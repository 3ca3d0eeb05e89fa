/**
 * `deliver: github_comment`, configured at `platforms.github`: the `gh` executable and its time limit, how it
 * posts (`mode`), whether it checks the head first (`check_head`), and the account it posts as (`login`).
 * When `platforms.github_app` is configured it posts as that App through the REST API instead of gh.
 */
import * as v from 'valibot'
import { definePlugin } from '../../../core/plugin-api/plugin.js'
import { boolean, integer, nonBlank } from '../../../core/config/schema-kit.js'

/** Comments on the pull request through `gh`, or as the GitHub App; always there (it needs no credentials of its own). */
export const githubCommentPlugin = definePlugin({
  name: 'github_comment',
  section: 'platforms.github',
  targets: ['github_comment', 'codehost_comment'],
  options: v.object({
    gh_path: v.optional(nonBlank('the gh executable, e.g. gh or /usr/local/bin/gh'), 'gh'),
    timeout_seconds: v.optional(integer(1), 60),
    mode: v.optional(v.picklist(['new', 'sticky', 'review'], 'expected new (a comment per answer), sticky (one comment per pull request, edited in place) or review (a pull-request review per head, findings on the diff)'), 'new'),
    check_head: v.optional(boolean, false),
    login: v.optional(nonBlank('the GitHub login gh posts as, e.g. my-app[bot]')),
  }),
  async setup(options, ctx) {
    const { githubCommentDelivery } = await import('./github-comment-target.js')
    const { ghPreflight } = await import('./preflight.js')
    const { githubAppOf, appRoutesOf } = await import('../../github-app/options.js')
    // With platforms.github_app configured, comments are the App's, through the REST API; gh is not needed.
    // A wrong App section is the github_app plugin's to report (once); gh is then used here.
    const app = await githubAppOf(ctx).catch(() => undefined)
    const target = githubCommentDelivery({
      app,
      // Tokens only for the routes verified with the App's own webhook secret.
      appRoute: app === undefined ? undefined : appRoutesOf(ctx),
      ghPath: options.gh_path,
      timeoutMs: options.timeout_seconds * 1000,
      mode: options.mode,
      checkHead: options.check_head,
      login: options.login,
      clock: ctx.clock,
      env: ctx.childEnv,
      cwd: ctx.workdir,
    })
    // The App's own check (its key and id against GitHub) is the github_app plugin's.
    const preflight = async () => (app === undefined ? ghPreflight(options.gh_path, ctx.childEnv) : [])
    return { name: 'github_comment', deliveryTargets: [{ ...target, aliases: ['codehost_comment'], preflight }] }
  },
})
