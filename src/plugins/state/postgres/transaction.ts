/** One PostgreSQL transaction on a held connection, for the table, the group commit of adds and the subscriptions. */
import type pg from 'pg'

/**
 * Runs `work` on a connection of `pool` held for it: one transaction. A connection the server ends while it is
 * held (a restart, `pg_terminate_backend`, a failover) fails the query on it, which `work` sees; its `error`
 * event is heard here, or it would be unhandled and end the process. A connection whose ROLLBACK fails is
 * dropped from the pool, not handed to the next write.
 */
export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect()
  const heard = () => {}
  client.on('error', heard)
  let broken: Error | undefined
  try {
    await client.query('BEGIN')
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (err) {
    await client.query('ROLLBACK').catch((rollback: unknown) => {
      broken = rollback instanceof Error ? rollback : new Error(String(rollback))
    })
    throw err
  } finally {
    client.off('error', heard)
    client.release(broken)
  }
}
