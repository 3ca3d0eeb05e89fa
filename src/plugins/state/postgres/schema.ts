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
  // The dynamic subscriptions (the file's JSON, one row) and the shared rate limit's log of counted hits, with the
  // slot decided in one call under the route's lock (limiter.ts says how).
  (s) => `
    CREATE TABLE ${s}.subscriptions (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      body text NOT NULL
    );
    CREATE TABLE ${s}.rate_hits (
      route text NOT NULL,
      at bigint NOT NULL,
      member text NOT NULL
    );
    CREATE INDEX rate_hits_route ON ${s}.rate_hits (route, at);
    CREATE INDEX rate_hits_member ON ${s}.rate_hits (member);
    CREATE FUNCTION ${s}.rate_slot(p_route text, p_window bigint, p_limit integer, p_member text, p_mode text, p_now bigint)
    RETURNS bigint LANGUAGE plpgsql VOLATILE AS $fn$
    DECLARE
      now_ms bigint := coalesce(p_now, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint);
      live integer;
      nth bigint;
      at_ms bigint := now_ms;
    BEGIN
      -- One decision per route at a time; each statement below reads what the previous holder committed.
      PERFORM pg_advisory_xact_lock(hashtextextended(${literal(s)} || ' rate ' || p_route, 0));
      DELETE FROM ${s}.rate_hits WHERE route = p_route AND at <= now_ms - p_window;
      SELECT count(*) INTO live FROM ${s}.rate_hits WHERE route = p_route;
      IF live >= p_limit THEN
        SELECT at INTO nth FROM ${s}.rate_hits WHERE route = p_route ORDER BY at, member OFFSET live - p_limit LIMIT 1;
        at_ms := greatest(now_ms, nth + p_window);
      END IF;
      IF NOT (at_ms - now_ms > 0 AND p_mode = 'hit') THEN
        INSERT INTO ${s}.rate_hits (route, at, member) VALUES (p_route, at_ms, p_member);
      END IF;
      RETURN at_ms - now_ms;
    END
    $fn$;`,
  // Fair turns (core/jobs/lifecycle/fairness.ts): the lease orders by turn first; the fairness key's last queued
  // turn and the queue's first and last turns are read through these indexes when a job is stored. A job stored
  // before this step has turn 0, the first round.
  (s) => `
    ALTER TABLE ${s}.jobs ADD COLUMN turn bigint NOT NULL DEFAULT 0, ADD COLUMN fair_key bytea;
    CREATE INDEX jobs_turn_due ON ${s}.jobs (turn, not_before, id) WHERE state = 'queued';
    CREATE INDEX jobs_turn_running ON ${s}.jobs (turn) WHERE state = 'running';
    CREATE INDEX jobs_fair_key ON ${s}.jobs (fair_key, turn) WHERE state = 'queued' AND fair_key IS NOT NULL;`,
]

/** A quoted schema identifier (`"name"`) as an SQL string literal of its name. */
function literal(quoted: string): string {
  return `'${quoted.replace(/"/g, '')}'`
}

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
