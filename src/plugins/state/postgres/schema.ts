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
  // Notes (core/jobs/lifecycle/notes.ts): small documents per route and pull request, changed by version. The key
  // is its UTF-8 bytes (a key may hold a NUL); expires_at is on the backend's clock, in ms.
  (s) => `
    CREATE TABLE ${s}.notes (
      key bytea PRIMARY KEY,
      value text NOT NULL,
      version integer NOT NULL,
      expires_at bigint
    );
    CREATE INDEX notes_expiry ON ${s}.notes (expires_at) WHERE expires_at IS NOT NULL;`,
  // The queued count in a row, kept by triggers on every write of the jobs (whoever writes them), so an add reads
  // max_queue's count in one indexed row instead of count(*) over a backlog that grows with the queue, and locks
  // that row (FOR UPDATE) to count one add at a time over every instance. Statement triggers with transition
  // tables: a lease of many jobs moves the count once.
  (s) => `
    CREATE TABLE ${s}.counts (
      name text PRIMARY KEY,
      n bigint NOT NULL
    );
    CREATE FUNCTION ${s}.count_queued() RETURNS trigger LANGUAGE plpgsql AS $fn$
    DECLARE
      delta bigint := 0;
      moved bigint;
    BEGIN
      IF TG_OP IN ('INSERT', 'UPDATE') THEN
        SELECT count(*) INTO moved FROM new_rows WHERE state = 'queued';
        delta := delta + moved;
      END IF;
      IF TG_OP IN ('UPDATE', 'DELETE') THEN
        SELECT count(*) INTO moved FROM old_rows WHERE state = 'queued';
        delta := delta - moved;
      END IF;
      IF delta <> 0 THEN
        UPDATE ${s}.counts SET n = n + delta WHERE name = 'queued';
      END IF;
      RETURN NULL;
    END
    $fn$;
    CREATE TRIGGER jobs_count_insert AFTER INSERT ON ${s}.jobs REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION ${s}.count_queued();
    CREATE TRIGGER jobs_count_update AFTER UPDATE ON ${s}.jobs REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION ${s}.count_queued();
    CREATE TRIGGER jobs_count_delete AFTER DELETE ON ${s}.jobs REFERENCING OLD TABLE AS old_rows
      FOR EACH STATEMENT EXECUTE FUNCTION ${s}.count_queued();
    -- Counted after the triggers: creating them locked the table against writes until this step commits.
    INSERT INTO ${s}.counts (name, n) SELECT 'queued', count(*) FROM ${s}.jobs WHERE state = 'queued';`,
  // The rate limit's live hits per route in a row (rate_counts), kept by rate_slot and rate_release, instead of
  // count(*) over the route's log at every request (a minute of hits at full speed is tens of thousands of rows);
  // the row is also the route's lock. rate_slots decides a turn's requests in one call. A decision commits
  // without waiting for its WAL flush: a request the gateway acknowledges is stored by a later synchronous
  // commit, which flushes the WAL up to it, so only hits of requests never acknowledged can be lost in a crash.
  (s) => `
    CREATE TABLE ${s}.rate_counts (
      route text PRIMARY KEY,
      n bigint NOT NULL
    );
    LOCK TABLE ${s}.rate_hits IN SHARE MODE;
    INSERT INTO ${s}.rate_counts (route, n) SELECT route, count(*) FROM ${s}.rate_hits GROUP BY route;
    CREATE OR REPLACE FUNCTION ${s}.rate_slot(p_route text, p_window bigint, p_limit integer, p_member text, p_mode text, p_now bigint)
    RETURNS bigint LANGUAGE plpgsql VOLATILE AS $fn$
    DECLARE
      now_ms bigint := coalesce(p_now, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint);
      live bigint;
      was bigint;
      expired bigint;
      nth bigint;
      at_ms bigint := now_ms;
    BEGIN
      PERFORM set_config('synchronous_commit', 'off', true);
      -- One decision per route at a time: the route's count row, locked until the decision commits.
      SELECT n INTO live FROM ${s}.rate_counts WHERE route = p_route FOR UPDATE;
      IF NOT FOUND THEN
        INSERT INTO ${s}.rate_counts (route, n) VALUES (p_route, 0) ON CONFLICT (route) DO NOTHING;
        SELECT n INTO live FROM ${s}.rate_counts WHERE route = p_route FOR UPDATE;
      END IF;
      was := live;
      WITH gone AS (DELETE FROM ${s}.rate_hits WHERE route = p_route AND at <= now_ms - p_window RETURNING 1)
      SELECT count(*) INTO expired FROM gone;
      live := live - expired;
      IF live >= p_limit THEN
        -- A refusal is decided on the log itself (bounded by the limit): a count that drifted heals here.
        SELECT count(*) INTO live FROM ${s}.rate_hits WHERE route = p_route;
      END IF;
      IF live >= p_limit THEN
        SELECT at INTO nth FROM ${s}.rate_hits WHERE route = p_route ORDER BY at, member OFFSET live - p_limit LIMIT 1;
        at_ms := greatest(now_ms, nth + p_window);
      END IF;
      IF NOT (at_ms - now_ms > 0 AND p_mode = 'hit') THEN
        INSERT INTO ${s}.rate_hits (route, at, member) VALUES (p_route, at_ms, p_member);
        live := live + 1;
      END IF;
      IF live <> was THEN
        UPDATE ${s}.rate_counts SET n = live WHERE route = p_route;
      END IF;
      RETURN at_ms - now_ms;
    END
    $fn$;
    CREATE FUNCTION ${s}.rate_slots(p_routes text[], p_windows bigint[], p_limits integer[], p_members text[], p_modes text[], p_nows bigint[])
    RETURNS bigint[] LANGUAGE plpgsql VOLATILE AS $fn$
    DECLARE
      waits bigint[] := '{}';
    BEGIN
      FOR i IN 1 .. coalesce(array_length(p_routes, 1), 0) LOOP
        waits := waits || ${s}.rate_slot(p_routes[i], p_windows[i], p_limits[i], p_members[i], p_modes[i], p_nows[i]);
      END LOOP;
      RETURN waits;
    END
    $fn$;
    CREATE FUNCTION ${s}.rate_release(p_member text) RETURNS void LANGUAGE plpgsql VOLATILE AS $fn$
    DECLARE
      hit_route text;
    BEGIN
      SELECT route INTO hit_route FROM ${s}.rate_hits WHERE member = p_member;
      IF NOT FOUND THEN RETURN; END IF;
      -- The route's lock first, as rate_slot takes it; the hit may have expired and gone meanwhile.
      PERFORM 1 FROM ${s}.rate_counts WHERE route = hit_route FOR UPDATE;
      DELETE FROM ${s}.rate_hits WHERE member = p_member AND route = hit_route;
      IF FOUND THEN
        UPDATE ${s}.rate_counts SET n = n - 1 WHERE route = hit_route;
      END IF;
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
