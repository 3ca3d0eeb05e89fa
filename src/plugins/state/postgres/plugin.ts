/**
 * `state.driver: postgres`: several instances share one PostgreSQL database. Its keys beside `driver` are `url`
 * (a secret: it may hold a password; unset, the usual PG* variables say where), `schema`, `pool_max`,
 * `lease_seconds`, `ca_file` (a CA to trust for TLS, beside the URL's sslmode) and the retention. `pg` loads only when it is chosen.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import * as v from 'valibot'
import { definePlugin } from '../../../core/plugin-api/plugin.js'
import { integer, nonBlank } from '../../../core/config/schema-kit.js'
import { retentionMs, retentionOptions } from '../retention.js'

/** `state:` keys of the PostgreSQL backend, with their defaults. */
export const postgresStateOptions = v.object({
  url: v.optional(v.pipe(
    nonBlank('the PostgreSQL URL, e.g. postgres://hookpilot@db:5432/hookpilot or ${DATABASE_URL}'),
    v.check((url: string) => /^postgres(ql)?:\/\/[^\s]+$/.test(url), 'expected postgres://user:password@host:5432/database (add ?sslmode=verify-full for TLS)'),
  )),
  schema: v.optional(v.pipe(nonBlank('the schema of hookpilot\'s tables, e.g. hookpilot'), v.regex(/^[a-z_][a-z0-9_]{0,62}$/, 'lower-case letters, digits and _ only, e.g. hookpilot')), 'hookpilot'),
  pool_max: v.optional(integer(2, 1_000), 10),
  // How long a job's lease lasts without renewal: how soon another instance takes over a dead one's jobs.
  lease_seconds: v.optional(integer(1, 3_600), 30),
  ca_file: v.optional(nonBlank('a PEM file of the CA that signed the server\'s certificate')),
  ...retentionOptions,
})

/**
 * The PostgreSQL state backend: jobs, de-dup keys and groups in one table every instance shares, with the shared
 * rate limiter and subscription store.
 */
export const postgresStatePlugin = definePlugin({
  name: 'postgres',
  section: 'state',
  selectedBy: { key: 'driver', value: 'postgres' },
  options: postgresStateOptions,
  secrets: ['url'],
  async setup(options, ctx) {
    const { postgresStores } = await import('./postgres-state.js')
    const ca = options.ca_file === undefined ? undefined : readFileSync(resolve(ctx.baseDir, options.ca_file), 'utf8')
    return {
      name: 'postgres',
      ...postgresStores({
        url: options.url,
        schema: options.schema,
        poolMax: options.pool_max,
        leaseMs: options.lease_seconds * 1000,
        // A CA given: TLS on, the server's certificate checked against it and its name against the URL's host.
        ssl: ca === undefined ? undefined : { ca, rejectUnauthorized: true },
        concurrency: ctx.config.agent.concurrency,
        maxQueue: ctx.config.agent.max_queue,
        now: ctx.clock,
        ...retentionMs(options),
      }),
    }
  },
})
