/**
 * The PostgreSQL backend's tables, as numbered migrations. Each instance applies the ones its database lacks at
 * start, under a session advisory lock of the schema: two instances starting at once take turns, and the second
 * finds every step applied. A database written by a newer hookpilot (a step this one does not know) is refused.
 */
import type pg from 'pg'

/** The migrations, in order; a step is never edited once released (a new one is added instead). */
export const MIGRATIONS: readonly ((schema: string) => string)[] = [
  (s) => `
    CREATE TABLE ${s}.jobs (
      id bigserial PRIMARY KEY,
      dedup_key bytea UNIQUE,
      state text NOT NULL,
      not_before bigint NOT NULL,
      grp bytea,
      received_at bigint NOT NULL,
      finished_at bigint,
      record text NOT NULL,
      payload text NOT NULL,
      token text,
      owner text,
      lease_until bigint,
      processes jsonb
    );
    CREATE INDEX jobs_due ON ${s}.jobs (not_before, id) WHERE state = 'queued';
    CREATE INDEX jobs_running ON ${s}.jobs (grp) WHERE state = 'running';
    CREATE INDEX jobs_group ON ${s}.jobs (grp, received_at DESC, id DESC) WHERE grp IS NOT NULL;
    CREATE INDEX jobs_finished ON ${s}.jobs (finished_at) WHERE finished_at IS NOT NULL;`,
]

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length

/** A schema name as SQL: only lower-case letters, digits and `_` (checked by the config), quoted anyway. */
export function schemaIdent(schema: string): string {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`invalid PostgreSQL schema name "${schema}": lower-case letters, digits and _ only`)
  return `"${schema}"`
}

/** Brings `schema` to {@link SCHEMA_VERSION} over `client`, one transaction per step; resolves the steps applied. */
export async function migrate(client: pg.ClientBase, schema: string): Promise<number> {
  const s = schemaIdent(schema)
  await client.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`hookpilot migrate ${schema}`])
  try {
    // Created only when missing: even CREATE SCHEMA IF NOT EXISTS needs the right to create schemas in the
    // database, which a role given a schema of its own (docs/deploy.md) does not have.
    const { rowCount } = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])
    if (rowCount === 0) await client.query(`CREATE SCHEMA ${s}`)
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`)
    const { rows } = await client.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${s}.migrations`)
    const at = rows[0]?.version ?? 0
    if (at > SCHEMA_VERSION) {
      throw new Error(`the PostgreSQL schema "${schema}" is at version ${at}, written by a newer hookpilot (this one knows ${SCHEMA_VERSION}): upgrade hookpilot, or use another state.schema`)
    }
    for (let version = at + 1; version <= SCHEMA_VERSION; version++) {
      await client.query('BEGIN')
      try {
        await client.query(MIGRATIONS[version - 1]!(s))
        await client.query(`INSERT INTO ${s}.migrations (version) VALUES ($1)`, [version])
        await client.query('COMMIT')
      } catch (err) {
        await client.query('ROLLBACK')
        throw err
      }
    }
    return SCHEMA_VERSION - at
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [`hookpilot migrate ${schema}`])
  }
}
