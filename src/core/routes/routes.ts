/**
 * Turns route configuration (from config.yaml or a dynamic subscription) into the {@link Route} the pipeline
 * uses, reporting what is wrong with it: a route without a secret is never an open route.
 */
import type { ConfigIssue } from '../errors.js'
import type { RouteConfig } from '../config/schema.js'
import { INSECURE_NO_AUTH } from '../route-types.js'
import type { Route } from '../types.js'
import { unclosedPlaceholderProblem } from './template.js'

/** What every route inherits from `platforms.webhook.extra`. */
export interface RouteDefaults {
  readonly host: string
  readonly secret: string | readonly string[] | undefined
  readonly rateLimit: number
}

/** True for addresses only this machine can reach. */
export function isLoopback(host: string): boolean {
  // A dual-stack socket reports an IPv4 peer as ::ffff:127.0.0.1.
  const address = host.startsWith('::ffff:') ? host.slice(7) : host
  return address === 'localhost' || address === '::1' || address === '[::1]' || /^127(\.\d{1,3}){3}$/.test(address)
}

/** Why a route with {@link INSECURE_NO_AUTH} cannot be served on `host`, which other machines can reach. */
export function insecureRefusal(host: string): string {
  return (
    `${INSECURE_NO_AUTH} turns signature checks off, so it is refused on host "${host}", which other ` +
    'machines can reach: bind platforms.webhook.extra.host (or --host) to 127.0.0.1, or set a real secret'
  )
}

/**
 * Resolves one route; problems are pushed to `issues` with paths under `path`, and `undefined` is returned
 * when the route cannot be used.
 */
export function resolveRoute(
  name: string,
  config: RouteConfig,
  defaults: RouteDefaults,
  source: Route['source'],
  path: string,
  issues: ConfigIssue[],
): Route | undefined {
  // A blank secret is no secret: an HMAC under "" or " " is something anyone can compute.
  const secrets = toList(config.secret ?? defaults.secret).filter((s) => s.trim() !== '')
  const before = issues.length
  if (secrets.length === 0) {
    // An own secret hides the global one; when that is what went wrong (`${VAR:-}`), say so.
    const hidesGlobal = config.secret !== undefined && toList(defaults.secret).some((s) => s.trim() !== '')
    issues.push({
      path: `${path}.secret`,
      message: hidesGlobal
        ? "the route's own secret is empty, and it replaces platforms.webhook.extra.secret: give it a value, or remove the key to use the global secret"
        : 'no secret: set one on the route or platforms.webhook.extra.secret (or WEBHOOK_SECRET); ' +
          `for local development only, ${INSECURE_NO_AUTH} on a loopback host`,
    })
  }
  if (secrets.includes(INSECURE_NO_AUTH) && !isLoopback(defaults.host)) {
    issues.push({ path: `${path}.secret`, message: insecureRefusal(defaults.host) })
  }
  templateIssues(config, path, issues)
  if (issues.length > before) return undefined
  return {
    name,
    secrets,
    events: config.events,
    prompt: config.prompt,
    skills: config.skills,
    actions: config.actions,
    // As written: an alias (`messenger_1`) is the target's own, and the target map resolves it.
    deliver: config.deliver,
    deliverExtra: config.deliver_extra,
    silentOutputs: config.silent_outputs,
    rateLimit: config.rate_limit ?? defaults.rateLimit,
    overLimit: config.over_limit,
    concurrency: config.concurrency && {
      key: config.concurrency.key,
      debounceMs: config.concurrency.debounce_seconds * 1000,
      maxWaitMs: config.concurrency.max_wait_seconds * 1000,
      cancelInProgress: config.concurrency.cancel_in_progress,
    },
    fairBy: config.fair_by,
    startWithinMs: config.start_within_seconds === undefined ? undefined : config.start_within_seconds * 1000,
    source,
    description: config.description,
    policy: config.policy && {
      file: config.policy.file === false ? undefined : config.policy.file,
      maxBytes: config.policy.max_bytes,
      allow: config.policy.allow,
      commands: config.policy.commands && {
        bot: config.policy.commands.bot,
        trusted: config.policy.commands.trusted,
        askPermission: config.policy.commands.ask_permission,
      },
    },
  }
}

/** The prompt and the `deliver_extra` templates: an unclosed `{number` is reported now, not found in a comment later. */
function templateIssues(config: RouteConfig, path: string, issues: ConfigIssue[]): void {
  const templates: [string, string | undefined][] = [
    ['prompt', config.prompt],
    ['fair_by', config.fair_by],
    ...Object.entries(config.deliver_extra).map(([key, value]): [string, string] => [`deliver_extra.${key}`, value]),
  ]
  for (const [key, template] of templates) {
    const problem = template === undefined ? undefined : unclosedPlaceholderProblem(template)
    if (problem !== undefined) issues.push({ path: `${path}.${key}`, message: problem })
  }
}

function toList(secret: string | readonly string[] | undefined): readonly string[] {
  if (secret === undefined) return []
  return typeof secret === 'string' ? [secret] : secret
}
