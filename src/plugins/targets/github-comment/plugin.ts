/** `deliver: github_comment`, configured at `platforms.github` (the `gh` executable and its time limit). */
import * as v from 'valibot'
import { definePlugin } from '../../../core/plugin-api/plugin.js'
import { integer, nonBlank } from '../../../core/config/schema-kit.js'

/** Comments on the pull request through `gh`; always there (it needs no credentials of its own). */
export const githubCommentPlugin = definePlugin({
  name: 'github_comment',
  section: 'platforms.github',
  targets: ['github_comment', 'codehost_comment'],
  options: v.object({
    gh_path: v.optional(nonBlank('the gh executable, e.g. gh or /usr/local/bin/gh'), 'gh'),
    timeout_seconds: v.optional(integer(1), 60),
  }),
  async setup(options, ctx) {
    const { githubCommentDelivery } = await import('./github-comment-target.js')
    const { ghPreflight } = await import('./preflight.js')
    const target = githubCommentDelivery({ ghPath: options.gh_path, timeoutMs: options.timeout_seconds * 1000, env: ctx.childEnv, cwd: ctx.workdir })
    const preflight = () => ghPreflight(options.gh_path, ctx.childEnv)
    return { name: 'github_comment', deliveryTargets: [{ ...target, aliases: ['codehost_comment'], preflight }] }
  },
})
