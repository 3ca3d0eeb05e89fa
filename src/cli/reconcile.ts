/**
 * `hookpilot reconcile`: one pass of reconcile (src/plugins/github-app/reconcile-hooks.ts) from another
 * terminal: the deliveries of the window that failed and that the gateway has no job for, of the App's hook and
 * of the repository and organisation hooks the hooks token reaches, are redelivered by GitHub to the running
 * gateway. Safe beside a running gateway and another reconcile: de-dup makes each delivery one job.
 */
import { dirname, isAbsolute, resolve } from 'node:path'
import { loadConfig } from '../index.js'
import { GatewayError } from '../core/errors.js'
import { at } from '../core/plugin-api/sections.js'
import * as v from 'valibot'
import { appSettings, githubAppOptions, hooksToken, SECTION } from '../plugins/github-app/options.js'
import { parse, UsageError } from './args.js'
import { duration } from './jobs-filter.js'
import { openJobs } from './jobs-store.js'
import type { Subcommand } from './io.js'
import type { LogFields, Logger } from '../core/types.js'

const HELP = `Usage: hookpilot reconcile [--since 3h] [--route R] [--dry-run]

Lists the deliveries of the window of the GitHub App's webhook (GET /app/hook/deliveries, with the App's key)
and of the repository and organisation webhooks the route's jobs came through or reconcile.hooks lists (GET
/repos/O/R/hooks/ID/deliveries, /orgs/O/hooks/ID/deliveries, with reconcile.token), and asks GitHub to redeliver
each one that failed (GitHub could not reach the gateway, or it answered 400 or more) and that the gateway holds
no job for. The gateway's de-dup makes each delivery exactly one job, so running it twice, or on several
machines at once, brings nothing twice.

Options:
  -c, --config FILE   configuration file (default: ./config.yaml): platforms.github_app (the App, or
                      reconcile.token for repository and organisation hooks) and the state store
      --since AGE     how far back to look (30m, 3h, 1d; default 3h; GitHub keeps deliveries for 3 days)
      --route R       the route the hooks' URL names (default: platforms.github_app.route)
      --max-pages N   pages of 100 attempts read at most (default 10)
      --dry-run       only say what would be redelivered
  -h, --help          show this help
`

/** Runs one reconcile pass; exit 0 when every needed redelivery was asked for, 1 otherwise. */
export const reconcileCommand: Subcommand = async (args, io) => {
  const { values, positionals } = parse(args, {
    config: { type: 'string', short: 'c', default: 'config.yaml' },
    since: { type: 'string', default: '3h' },
    route: { type: 'string' },
    'max-pages': { type: 'string', default: '10' },
    'dry-run': { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  }, 'reconcile')
  if (values.help) {
    io.stdout.write(HELP)
    return 0
  }
  if (positionals.length > 0) throw new UsageError(`reconcile takes no arguments (got ${positionals.join(' ')}).`)
  if (!/^\d+[smhd]$/.test(values.since.trim())) throw new UsageError(`--since takes an age such as 30m, 3h or 1d (units: s, m, h, d), not "${values.since}".`)
  const windowMs = duration(values.since)
  const maxPages = Number(values['max-pages'])
  if (!Number.isSafeInteger(maxPages) || maxPages < 1) throw new UsageError(`--max-pages takes a whole number of at least 1, not "${values['max-pages']}".`)
  const configPath = isAbsolute(values.config) ? values.config : resolve(io.cwd, values.config)
  const config = await loadConfig(configPath, { env: io.env, lenientEnv: true })
  // loadConfig checked the section with the plugin's schema and refused a bad one; parsing it again only fills in
  // the defaults of a config that has no platforms.github_app at all.
  const options = v.parse(githubAppOptions, at(config, SECTION) ?? {})
  const settings = appSettings(options, dirname(configPath))
  const token = hooksToken(options)
  if (settings === undefined && token === undefined) {
    throw new GatewayError('ERR_CONFIG', `reconcile needs a GitHub App (${SECTION}.app_id and its private key) or a token for repository and organisation hooks (${SECTION}.reconcile.token); see docs/github-app.md`)
  }
  const route = values.route ?? options.route
  if (route === undefined) throw new UsageError(`name the route the hooks' URL points at: --route R, or ${SECTION}.route`)
  const { Octokit } = await import('@octokit/core')
  const { reconcileHooks } = await import('../plugins/github-app/reconcile-hooks.js')
  const app = settings === undefined ? undefined : (await import('../plugins/github-app/app.js')).createGithubApp({ ...settings, baseUrl: options.api_url })
  const open = await openJobs(config, dirname(configPath))
  try {
    const summary = await reconcileHooks({
      app: app && (() => app.appClient()), token: token === undefined ? undefined : new Octokit({ auth: token, baseUrl: options.api_url }),
      hooks: options.reconcile.hooks, route, jobs: open.jobs, windowMs, maxPages, dryRun: values['dry-run'] === true, log: lines(io.stderr),
    })
    const { counts } = summary
    const asked = values['dry-run'] === true ? `${counts.would_redeliver} would be redelivered` : `${counts.redelivered} redelivered`
    const unlisted = summary.failed.length > 0 ? `; could not list ${summary.failed.join(', ')}` : ''
    io.stdout.write(`${asked}; ${counts.present} already held as jobs, ${counts.answered} answered by the gateway, ${counts.error} refused by GitHub${summary.truncated ? '; stopped at --max-pages before the end of the window' : ''}${unlisted}.\n`)
    return counts.error > 0 || summary.failed.length > 0 ? 1 : 0
  } finally {
    await open.close()
  }
}

/** Log lines on stderr, `message key=value ...`. */
function lines(out: NodeJS.WritableStream): Logger {
  const write = (message: string, fields: LogFields = {}) =>
    void out.write(`${message}${Object.entries(fields).map(([k, v]) => (v === undefined ? '' : ` ${k}=${String(v)}`)).join('')}\n`)
  return { debug: () => undefined, info: write, warn: write, error: write }
}
