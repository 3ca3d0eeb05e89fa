/**
 * A route's `policy:` section of config.yaml: whether repositories' policy files are read, which of their keys a
 * repository may set, and who may command the bot on a pull request. The keys a policy file can hold are listed
 * here ({@link POLICY_KEYS}) because the gateway's `allow` names them; `src/core/policy/` reads the files.
 */
import * as v from 'valibot'
import { boolean, integer, nonBlank, text } from './schema-kit.js'

/**
 * Every key a repository's policy file may set, as `allow` names them. A whole section (`filters`) allows each of
 * its keys. These are the settings safe to hand a repository: none reaches the agent's command, its account, the
 * state store, a secret or another repository; the debounce only lengthens the route's, and budgets only tighten
 * the gateway's.
 */
export const POLICY_KEYS = Object.freeze([
  'filters',
  'filters.skip_drafts',
  'filters.skip_bots',
  'filters.skip_authors',
  'filters.only_authors',
  'filters.labels',
  'filters.skip_title',
  'filters.base_branches',
  'filters.head_branches',
  'filters.ignore_paths',
  'instructions',
  'settings',
  'settings.fail_on',
  'settings.max_inline_comments',
  'settings.incremental',
  'settings.debounce_seconds',
  'budgets',
  'budgets.pull_request',
  'budgets.repository_day',
] as const)

/** A key of {@link POLICY_KEYS}. */
export type PolicyKey = (typeof POLICY_KEYS)[number]

/** The associations GitHub gives a comment's author (`author_association`); GitLab's roles stand for some of them (docs/policy.md). */
export const AUTHOR_ASSOCIATIONS = Object.freeze(['OWNER', 'MEMBER', 'COLLABORATOR', 'CONTRIBUTOR', 'FIRST_TIME_CONTRIBUTOR', 'FIRST_TIMER', 'MANNEQUIN', 'NONE'] as const)

/** A policy file larger than this is never read, whatever `max_bytes` says. */
export const MAX_POLICY_BYTES = 1_048_576

// A GitHub login (letters, digits, `-`; an App's with `[bot]`) or a GitLab username (also `_` and `.`, longer).
const botName = v.pipe(
  text,
  v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,254}(?:\[bot\])?$/, 'the name commands are addressed to, without @: a GitHub login such as hookpilot or my-app[bot], or a GitLab username'),
)

/** `policy.commands`: the bot's name and who may command it. */
const commandsSchema = v.strictObject({
  bot: botName,
  trusted: v.optional(
    v.array(v.picklist(AUTHOR_ASSOCIATIONS, `expected one of ${AUTHOR_ASSOCIATIONS.join(', ')}`), 'expected a list of author associations'),
    ['OWNER', 'MEMBER', 'COLLABORATOR'],
  ),
  ask_permission: v.optional(boolean, false),
})

/** `platforms.webhook.extra.routes.<name>.policy`. */
export const routePolicySchema = v.strictObject({
  // false: the route reads no policy file (commands only)
  file: v.optional(v.union([nonBlank('a path in the repository, e.g. .hookpilot.yml'), v.literal(false)], 'expected a path in the repository (e.g. .hookpilot.yml) or false'), '.hookpilot.yml'),
  max_bytes: v.optional(integer(1, MAX_POLICY_BYTES), 65_536),
  allow: v.optional(v.array(v.picklist(POLICY_KEYS, `expected keys among ${POLICY_KEYS.join(', ')}`), 'expected a list of policy keys'), [...POLICY_KEYS]),
  commands: v.optional(commandsSchema),
})

/** A route's `policy:` as written. */
export type RoutePolicyConfig = v.InferOutput<typeof routePolicySchema>
