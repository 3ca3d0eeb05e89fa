/**
 * `platforms.gitlab`: GitLab's API (`api_url`, for a self-managed GitLab) and a token of the `api` scope, and
 * `deliver: gitlab_mr` on routes: a review posted on the merge request (a sticky note, discussions on the diff, a
 * commit status). The token is a secret: redacted from every log line and kept from the agent and every program
 * the gateway runs.
 */
import * as v from 'valibot'
import { defineConfiguredPlugin } from '../../../core/plugin-api/definition.js'
import { boolean, integer, text } from '../../../core/config/schema-kit.js'

const API_URL = v.pipe(
  text,
  v.check((s: string) => /^https?:\/\/[^/\s]+/.test(s), 'expected the API root of your GitLab, e.g. https://gitlab.example.com/api/v4'),
)

/** GitLab merge request reviews. */
export const gitlabMrPlugin = defineConfiguredPlugin({
  name: 'gitlab_mr',
  section: 'platforms.gitlab',
  targets: ['gitlab_mr'],
  enableHint: 'platforms.gitlab is not enabled: set platforms.gitlab.enabled: true and platforms.gitlab.token: ${GITLAB_TOKEN} (a project or group access token with the api scope)',
  secrets: ['token'],
  options: v.pipe(
    v.object({
      enabled: v.optional(boolean, false),
      token: v.optional(text),
      api_url: v.optional(API_URL, 'https://gitlab.com/api/v4'),
      timeout_seconds: v.optional(integer(1, 600), 30),
      max_inline: v.optional(integer(0, 100)),
    }),
    v.forward(
      v.partialCheck([['enabled'], ['token']], (o) => !o.enabled || (o.token ?? '').trim() !== '', 'required when platforms.gitlab.enabled is true: a project or group access token with the api scope, e.g. token: ${GITLAB_TOKEN}'),
      ['token'],
    ),
  ),
  async setup(options, ctx) {
    if (!options.enabled) return { name: 'gitlab_mr' }
    const { gitlabMrDelivery } = await import('./gitlab-mr-target.js')
    const target = gitlabMrDelivery({
      token: options.token ?? '',
      apiUrl: options.api_url,
      timeoutMs: options.timeout_seconds * 1000,
      maxInline: options.max_inline,
      clock: ctx.clock,
    })
    return { name: 'gitlab_mr', deliveryTargets: [target] }
  },
})
