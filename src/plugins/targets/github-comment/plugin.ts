/**
 * `deliver: github_comment`, configured at `platforms.github`: the `gh` executable and its time limit, how it
 * posts (`mode`), whether it checks the head first (`check_head`), and the account it posts as (`login`).
 * When `platforms.github_app` is configured it posts as that App through the REST API instead of gh.
 */
import * as v from 'valibot'
import { definePlugin } from '../../../core/plugin-api/plugin.js'
import { boolean, integer, nonBlank } from '../../../core/config/schema-kit.js'
import { at } from '../../../core/plugin-api/sections.js'

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
    // Review mode's check links to its job on the status page (status_page.enabled), at this address.
    status_url: v.optional(v.pipe(nonBlank('the status page as people reach it, e.g. https://hooks.example.com/status'), v.regex(/^https?:\/\/[^\s#]+$/, 'expected the status page\'s http(s) address without a fragment, e.g. https://hooks.example.com/status'))),
  }),
  async setup(options, ctx) {
    const { githubCommentDelivery } = await import('./github-comment-target.js')
    const { ghPreflight } = await import('./preflight.js')
    const { githubAppOf, appRoutesOf } = await import('../../github-app/options.js')
    // With platforms.github_app configured, comments are the App's, through the REST API; gh is not needed.
    // A wrong App section is the github_app plugin's to report (once); gh is then used here.
    const app = await githubAppOf(ctx).catch(() => undefined)
    // The status page's own section (as written: `true`, or `"true"` from a variable).
    const pageOn = [true, 'true'].includes(at(ctx.config, 'status_page.enabled') as boolean | string)
    const target = githubCommentDelivery({
      app,
      // Tokens only for the routes verified with the App's own webhook secret.
      appRoute: app === undefined ? undefined : appRoutesOf(ctx),
      ghPath: options.gh_path,
      timeoutMs: options.timeout_seconds * 1000,
      mode: options.mode,
      checkHead: options.check_head,
      login: options.login,
      // A link to a page that is off would lead nowhere.
      statusUrl: pageOn ? options.status_url?.replace(/\/+$/, '') : undefined,
      clock: ctx.clock,
      env: ctx.childEnv,
      cwd: ctx.workdir,
    })
    if (options.status_url !== undefined && !pageOn) ctx.log.warn('platforms.github.status_url is set but the status page is off (status_page.enabled: false): review checks carry no link to their job')
    // The App's own check (its key and id against GitHub) is the github_app plugin's.
    const preflight = async () => (app === undefined ? ghPreflight(options.gh_path, ctx.childEnv) : [])
    return { name: 'github_comment', deliveryTargets: [{ ...target, aliases: ['codehost_comment'], preflight }] }
  },
})
