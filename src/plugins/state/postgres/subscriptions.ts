/**
 * Dynamic subscriptions in PostgreSQL, for every instance: the set is one row holding the file's JSON, changed in
 * a transaction that locks it (a concurrent command waits, then changes what this one wrote: nothing is lost), and
 * each change is announced with `NOTIFY`, so every running gateway re-reads the set at once, never per request.
 */
import type pg from 'pg'
import { GatewayError } from '../../../core/errors.js'
import { emptySubscriptions, parseSubscriptionsText } from '../../../core/routes/subscriptions/schema.js'
import type { SubscriptionsRead } from '../../../core/routes/subscriptions/store.js'
import type { SubscriptionStore } from '../../../core/routes/subscriptions/subscription-store.js'
import { listenOn } from './listener.js'
import { withTransaction } from './transaction.js'

/** The channel on which a change of `schema`'s subscriptions is announced. */
export function subscriptionsChannel(schema: string): string {
  return `${schema}_subscriptions`
}

/** The store over `pool` (once the backend started) in `schema`; `config` opens the connection that listens. */
export function postgresSubscriptionStore(pool: () => pg.Pool, config: () => pg.ClientConfig, schema: string, where: string): SubscriptionStore {
  const s = `"${schema}"`
  const shown = `${where}, table subscriptions`
  const parse = (text: string | undefined): SubscriptionsRead => {
    if (text === undefined) return { status: 'missing' }
    const parsed = parseSubscriptionsText(text)
    return parsed.ok ? { status: 'ok', file: parsed.file } : { status: 'invalid', reason: parsed.reason }
  }
  return {
    where: shown,
    async read() {
      const { rows } = await pool().query<{ body: string }>(`SELECT body FROM ${s}.subscriptions`)
      return parse(rows[0]?.body)
    },
    update(change) {
      return withTransaction(pool(), async (client) => {
        // The row is made once (empty) so there is always one to lock; a second maker waits, then finds it.
        await client.query(`INSERT INTO ${s}.subscriptions (body) VALUES ($1) ON CONFLICT DO NOTHING`, [JSON.stringify(emptySubscriptions(), null, 2)])
        const { rows } = await client.query<{ body: string }>(`SELECT body FROM ${s}.subscriptions FOR UPDATE`)
        const read = parse(rows[0]?.body)
        if (read.status === 'invalid') {
          throw new GatewayError('ERR_SUBSCRIPTION', `The subscriptions in ${shown} are invalid (${read.reason}); fix or delete the row first.`)
        }
        const { file, result } = change(read.status === 'ok' ? read.file : emptySubscriptions())
        if (file !== undefined) {
          await client.query(`UPDATE ${s}.subscriptions SET body = $1`, [JSON.stringify(file, null, 2)])
          await client.query('SELECT pg_notify($1, \'\')', [subscriptionsChannel(schema)])
        }
        return result
      })
    },
    watch(onChange) {
      // Once listening (and after each reconnect) it calls onChange too: a change made meanwhile is not missed.
      const listener = listenOn(config(), subscriptionsChannel(schema), onChange, () => {})
      return () => void listener.close()
    },
  }
}
