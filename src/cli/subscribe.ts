/**
 * `hookpilot subscribe <name>`: adds (or updates) a dynamic subscription in the subscriptions file. A running
 * gateway picks it up without a restart. The secret is printed once, when it is set, and never again.
 */
import { randomBytes } from 'node:crypto'
import { routeProblem } from '../core/routes/route-problem.js'
import { parseEntry, resolveSubscription, type SubscriptionChange, type SubscriptionInput } from '../core/routes/subscriptions/index.js'
import { parse, UsageError } from './args.js'
import type { Subcommand } from './io.js'
import { commandName } from './listening.js'
import { marketSection, subscribeMarket } from './subscribe-market.js'
import { servedTargets, COMMON_HELP, COMMON_OPTIONS, withContext, oneName, publicUrl, splitList } from './subscriptions-common.js'

const HELP = `Usage: hookpilot subscribe <name> [options]
       hookpilot subscribe --market <slug|token ids> --when COND [--when COND ...] [--name NAME] [options]

Adds a webhook route at run time: POST /webhooks/<name>. A running gateway picks it up within a second,
without a restart. Names: lower-case letters, digits, "-", "_". An existing subscription of that name is
rewritten from these flags (a flag left out goes back to its default); its secret is kept unless --secret is given.

Options:
      --events a,b         event types to accept (default: every event), e.g. pull_request,push
      --actions a,b        actions to accept (default: every action), e.g. opened,synchronize,reopened;
                           others are answered "ignored" and run no agent
      --prompt TEXT        prompt template, e.g. "Review PR #{number}: {pull_request.title}"
      --skills a,b         skills to try, first found is loaded
      --deliver TARGET     where the answer goes (default: log): log, github_comment, telegram, ...
      --deliver-chat-id C  chat id for a chat target (deliver_extra.chat_id)
      --deliver-extra K=V  a deliver_extra key (repeatable), e.g. --deliver-extra repo={repository.full_name}
                           --deliver-extra pr_number={number} for github_comment
      --secret S           the webhook secret (default: 32 random bytes, URL-safe base64)
      --description TEXT   shown by "hookpilot list"

Market watches (need platforms.market.enabled; a running gateway starts and stops them without a restart):
      --market M           a market slug, or its token ids separated by commas
      --when COND          a condition (repeatable): midpoint_moves=0.05/600 (a move of 0.05 within 600 s;
                           10m, 1h work too), price_crosses=0.25,0.5 (add /0.02 for the band), trade_size_over=5000,
                           resolved
      --name NAME          the watch's name (default: the slug); its jobs' route is market:NAME
      --rate-limit N       alerts per rolling minute (default 30)
      --prompt, --deliver, --deliver-chat-id, --deliver-extra   as above
${COMMON_HELP}
`

/** Writes the subscription and prints its URL, its secret and what to enter in GitHub. */
export const subscribe: Subcommand = async (args, io) => {
  const { values, positionals } = parse(joinNegativeIds(args), {
    ...COMMON_OPTIONS,
    events: { type: 'string' },
    actions: { type: 'string' },
    prompt: { type: 'string' },
    skills: { type: 'string' },
    deliver: { type: 'string' },
    'deliver-chat-id': { type: 'string' },
    'deliver-extra': { type: 'string', multiple: true },
    secret: { type: 'string' },
    description: { type: 'string' },
    market: { type: 'string' },
    when: { type: 'string', multiple: true },
    name: { type: 'string' },
    'rate-limit': { type: 'string' },
  }, 'subscribe')
  if (values.help) {
    io.stdout.write(HELP)
    return 0
  }
  if (values.market !== undefined) {
    const webhookOnly = (['events', 'actions', 'skills', 'secret', 'description'] as const).filter((k) => values[k] !== undefined)
    if (webhookOnly.length > 0) throw new UsageError(`--${webhookOnly.join(', --')} ${webhookOnly.length === 1 ? 'is' : 'are'} for webhook routes, not for --market.`)
    if (values.name !== undefined && positionals.length > 0) throw new UsageError('give the watch name once: as <name> or with --name.')
    const name = values.name ?? (positionals.length > 0 ? oneName(positionals, 'subscribe') : undefined)
    return subscribeMarket({
      config: values.config, market: values.market, when: values.when ?? [], name, prompt: values.prompt, deliver: values.deliver,
      deliverExtra: deliverExtra(values['deliver-extra'] ?? [], values['deliver-chat-id']), rateLimit: values['rate-limit'],
    }, io)
  }
  if (values.when !== undefined || values.name !== undefined || values['rate-limit'] !== undefined) {
    throw new UsageError('--when, --name and --rate-limit are for market watches: add --market <slug|token ids>.')
  }
  const name = oneName(positionals, 'subscribe')
  if (values.secret !== undefined && values.secret.trim() === '') throw new UsageError('--secret must not be empty (leave it out to generate one).')
  return withContext(values.config, io, async (ctx) => {
    if (ctx.staticNames.has(name)) {
      io.stderr.write(`"${name}" is a static route in ${ctx.configPath}. Static routes win a name clash and are not changed by subscribe: pick another name.\n`)
      return 1
    }
    const watchClash = () => {
      io.stderr.write(`"${name}" is the name of a market watch, which "hookpilot remove" also finds by name: pick another name.\n`)
      return 1
    }
    if (marketSection(ctx).watches.has(name)) return watchClash()
    const secret = values.secret ?? generateSecret()
    const events = splitList(values.events)
    const actions = splitList(values.actions)
    const extra = deliverExtra(values['deliver-extra'] ?? [], values['deliver-chat-id'])
    const entry: SubscriptionInput = {
      secret,
      events,
      ...(actions.length > 0 ? { actions } : {}),
      ...(values.prompt === undefined ? {} : { prompt: values.prompt }),
      skills: splitList(values.skills),
      deliver: values.deliver ?? 'log',
      deliver_extra: extra,
      ...(values.description === undefined ? {} : { description: values.description }),
      created_at: new Date().toISOString(),
    }
    const checked = parseEntry(name, entry)
    if (!checked.ok) throw new UsageError(`invalid subscription: ${checked.reason}.`)
    // The same checks the gateway makes; a secret it would refuse is refused now, not discovered in its log.
    const route = resolveSubscription(name, entry, { config: ctx.config, staticNames: new Set() })
    if ('reason' in route) {
      io.stderr.write(`Cannot subscribe "${name}": ${route.reason}\n`)
      return 1
    }
    // A target that refuses the route (github_comment without repo or pr_number) could never deliver: refused now.
    // A platform that is only not enabled yet is a warning below: enabling it makes the subscription work.
    const served = await servedTargets(ctx)
    const refusal = served?.targets.get(route.deliver)?.checkRoute?.(route)
    if (refusal !== undefined) {
      io.stderr.write(`Cannot subscribe "${name}": ${refusal}. Give it with --deliver-extra KEY=VALUE.\n`)
      return 1
    }

    // A watch of that name in the store is checked in the same atomic change that writes the subscription.
    const outcome = await ctx.store.update((file): SubscriptionChange<{ created: boolean; newSecret: boolean } | 'watch'> => {
      if (file.watches !== undefined && Object.hasOwn(file.watches, name)) return { result: 'watch' }
      const before = (Object.hasOwn(file.subscriptions, name) ? file.subscriptions[name] : undefined) as { secret?: unknown; created_at?: unknown } | undefined
      // Updating keeps the secret GitHub already has, unless a new one was given.
      const keep = values.secret === undefined && before !== undefined && isSecret(before.secret)
      const next = {
        ...entry,
        ...(keep ? { secret: before.secret } : {}),
        ...(typeof before?.created_at === 'string' ? { created_at: before.created_at } : {}),
      }
      return { file: { ...file, subscriptions: { ...file.subscriptions, [name]: next } }, result: { created: before === undefined, newSecret: !keep } }
    })
    if (outcome === 'watch') return watchClash()

    const url = publicUrl(ctx.config, name, ctx.configPath)
    const lines = [
      `${outcome.created ? 'Created' : 'Updated'} subscription "${name}" in ${ctx.store.where}`,
      '',
      `  URL:      ${url}`,
      outcome.newSecret ? `  Secret:   ${secret}` : '  Secret:   unchanged (not shown)',
      `  Events:   ${events.length ? events.join(', ') : '(all)'}`,
      ...(actions.length ? [`  Actions:  ${actions.join(', ')}`] : []),
      `  Deliver:  ${entry.deliver}${values['deliver-chat-id'] === undefined ? '' : ` (chat ${values['deliver-chat-id']})`}`,
      '',
      'In GitHub: repository → Settings → Webhooks → Add webhook, and enter:',
      `  Payload URL:   ${url}   (GitHub must reach it: put your public address in place of the host)`,
      '  Content type:  application/json',
      `  Secret:        ${outcome.newSecret ? 'the secret above (shown only now: store it)' : 'the one set before'}`,
      `  Events:        ${events.length ? `"Let me select individual events": ${events.join(', ')}` : '"Send me everything"'}`,
      '',
      `A running gateway picks this up without a restart. Try it: ${commandName(io.env)} test ${name} --config ${values.config}`,
    ]
    io.stdout.write(lines.join('\n') + '\n')
    const problem = served === undefined ? undefined : routeProblem(route, served.targets, served.hints)
    if (problem) io.stderr.write(`Warning: ${problem}. "hookpilot serve" skips this subscription (with a warning) until that is fixed.\n`)
    return 0
  })
}

/**
 * Telegram group ids are negative (`-100123...`), which node's parser would take for an option: join such a
 * value to its flag so `--deliver-chat-id -100123` works as typed.
 */
function joinNegativeIds(args: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ''
    const next = args[i + 1]
    if (arg === '--deliver-chat-id' && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`)
      i++
    } else out.push(arg)
  }
  return out
}

/** 32 random bytes, URL-safe: as strong as a secret needs to be, and safe to paste anywhere. */
function generateSecret(): string {
  return randomBytes(32).toString('base64url')
}

function isSecret(value: unknown): value is string | string[] {
  return (typeof value === 'string' && value !== '') || (Array.isArray(value) && value.length > 0 && value.every((s) => typeof s === 'string'))
}

/** `--deliver-extra key=value` flags (and `--deliver-chat-id`) as the route's `deliver_extra`. */
function deliverExtra(pairs: readonly string[], chatId: string | undefined): Record<string, string> {
  const extra: Record<string, string> = {}
  for (const pair of pairs) {
    const eq = pair.indexOf('=')
    const key = eq === -1 ? '' : pair.slice(0, eq).trim()
    if (!/^[a-z][a-z0-9_]*$/.test(key)) {
      throw new UsageError(`--deliver-extra takes KEY=VALUE with a lower-case key, e.g. repo={repository.full_name}; got "${pair}".`)
    }
    extra[key] = pair.slice(eq + 1)
  }
  if (chatId !== undefined) extra['chat_id'] = chatId
  return extra
}
