/**
 * The durable floor (PostgreSQL), issue 36: the floor's work (floor-work.js), then the raw body and its delivery
 * id written with `pg` in one `INSERT … ON CONFLICT DO NOTHING` for every request accepted in one turn of the event
 * loop (group commit, autocommitted), the 202s after the commit. The least a gateway that keeps what it
 * acknowledged in PostgreSQL does; hookpilot's postgres row is measured against it (handle-cost.js).
 */
import pg from 'pg'
import { batchingFloor, committed, notCommitted } from './floor-work.js'

/** Opens the floor's table at `url`; `handle(req, body)` resolves `{ status, body }` once committed. */
export async function postgresDurableFloor(url) {
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  await pool.query('CREATE TABLE IF NOT EXISTS floor_events (id bigserial PRIMARY KEY, delivery_id text NOT NULL UNIQUE, body bytea NOT NULL)')
  const handle = batchingFloor((items) => {
    const params = items.flatMap((item) => [item.id, item.body])
    const rows = items.map((_, i) => `($${2 * i + 1}, $${2 * i + 2})`).join(', ')
    pool.query(`INSERT INTO floor_events (delivery_id, body) VALUES ${rows} ON CONFLICT (delivery_id) DO NOTHING`, params).then(
      () => items.forEach(committed),
      (err) => items.forEach((item) => notCommitted(item, err.message)),
    )
  })
  return { handle, close: () => pool.end() }
}
