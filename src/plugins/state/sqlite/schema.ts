/**
 * The state database's schema, versioned with `PRAGMA user_version` and migrated forward in one transaction
 * per step. A database written by a newer hookpilot is refused rather than guessed at.
 */
import type Database from 'better-sqlite3'
import { stateError } from './state-error.js'

/**
 * Each entry takes the schema from version i to i + 1. Append, never edit: a released step has already run on
 * somebody's file.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE jobs (
     id          INTEGER PRIMARY KEY,
     route       TEXT    NOT NULL,
     event       TEXT    NOT NULL,
     delivery_id TEXT    NOT NULL,
     dedup_key   TEXT,
     payload     TEXT    NOT NULL,
     received_at INTEGER NOT NULL,
     state       TEXT    NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed')),
     stage       TEXT    NOT NULL CHECK (stage IN ('run', 'deliver')),
     answer      TEXT,
     progress    INTEGER NOT NULL DEFAULT 0,
     attempts    INTEGER NOT NULL DEFAULT 0,
     not_before  INTEGER NOT NULL,
     last_error  TEXT,
     owner       TEXT,
     lease_until INTEGER,
     processes   TEXT,
     updated_at  INTEGER NOT NULL,
     finished_at INTEGER
   );
   -- One job holds a de-dup key at a time; a job that hands it on (a redelivery after the window) keeps NULL.
   CREATE UNIQUE INDEX jobs_dedup_key ON jobs (dedup_key) WHERE dedup_key IS NOT NULL;
   CREATE INDEX jobs_due ON jobs (state, not_before);
   CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;
   CREATE INDEX jobs_route ON jobs (route, id);`,
  // Payloads apart from the jobs: a job row is written three times or more after it is stored (lease, answer,
  // outcome), and SQLite rewrites the whole row on each update: with a 25 KB payload inside, its seven
  // overflow pages each time.
  // New payloads are brotli (payload-codec.ts); those copied here stay JSON text.
  `CREATE TABLE payloads (
     job_id INTEGER PRIMARY KEY REFERENCES jobs (id) ON DELETE CASCADE,
     json   TEXT,
     brotli BLOB,
     CHECK ((json IS NULL) != (brotli IS NULL))
   );
   INSERT INTO payloads (job_id, json) SELECT id, payload FROM jobs;
   ALTER TABLE jobs DROP COLUMN payload;`,
  // A lease names its try (lease_token), so a write of a try whose lease was taken over is refused. The
  // queued count lives in a row kept by triggers, so max_queue is read inside the write that adds a job, by
  // every process on the file, without walking the index.
  `ALTER TABLE jobs ADD COLUMN lease_token TEXT;
   CREATE TABLE counts (state TEXT PRIMARY KEY, n INTEGER NOT NULL);
   INSERT INTO counts (state, n) SELECT 'queued', count(*) FROM jobs WHERE state = 'queued';
   CREATE TRIGGER jobs_queued_insert AFTER INSERT ON jobs WHEN NEW.state = 'queued'
     BEGIN UPDATE counts SET n = n + 1 WHERE state = 'queued'; END;
   CREATE TRIGGER jobs_queued_delete AFTER DELETE ON jobs WHEN OLD.state = 'queued'
     BEGIN UPDATE counts SET n = n - 1 WHERE state = 'queued'; END;
   CREATE TRIGGER jobs_queued_update AFTER UPDATE OF state ON jobs WHEN (OLD.state = 'queued') != (NEW.state = 'queued')
     BEGIN UPDATE counts SET n = n + (NEW.state = 'queued') - (OLD.state = 'queued') WHERE state = 'queued'; END;`,
  // Concurrency groups and honest outcomes. A job that ended skipped or superseded is stored as state 'done'
  // with `outcome` saying which (rows.ts maps the pair to one state): the state column's CHECK cannot be
  // widened without rebuilding the table, and a rebuild would have to turn foreign keys off, outside any
  // transaction, on a file other processes may be using. Purge treats both as done jobs, which they are.
  `ALTER TABLE jobs ADD COLUMN outcome TEXT CHECK (outcome IN ('skipped', 'superseded'));
   ALTER TABLE jobs ADD COLUMN grp TEXT;
   ALTER TABLE jobs ADD COLUMN burst_at INTEGER;
   ALTER TABLE jobs ADD COLUMN covers INTEGER NOT NULL DEFAULT 1;
   ALTER TABLE jobs ADD COLUMN superseded_by TEXT;
   ALTER TABLE jobs ADD COLUMN note TEXT;
   ALTER TABLE jobs ADD COLUMN url TEXT;
   CREATE INDEX jobs_group ON jobs (grp, state) WHERE grp IS NOT NULL;`,
  // Every start of a job's agent, counted apart from the tries of its stage (which storing the answer resets):
  // a job whose agent a crash cut off showed one try although its agent ran twice. A job stored before this
  // step counted its runs in its tries while in stage 'run'; one past it ran its agent at least once.
  `ALTER TABLE jobs ADD COLUMN runs INTEGER NOT NULL DEFAULT 0;
   UPDATE jobs SET runs = CASE WHEN stage = 'run' THEN attempts ELSE 1 END;`,
  // Where a job comes from, set once when it is accepted: the event's page (a pull request, a merge request, a
  // market) and the GitHub webhook that delivered it. Nullable: jobs stored before this step have neither.
  `ALTER TABLE jobs ADD COLUMN link TEXT;
   ALTER TABLE jobs ADD COLUMN hook TEXT;`,
  // Notes (core/jobs/lifecycle/notes.ts): small documents per route and pull request, changed by version.
  `CREATE TABLE notes (
     key TEXT PRIMARY KEY,
     value TEXT NOT NULL,
     version INTEGER NOT NULL,
     expires_at INTEGER
   ) WITHOUT ROWID;`,
  // Fair turns and a start deadline (core/jobs/lifecycle/fairness.ts, transitions.ts' expired): the fairness key
  // and the deadline are set once when a job is accepted; the turn orders the lease. The indexes are partial (queued
  // jobs only), so a lease removes one entry and an outcome none; the running jobs' highest turn is read through
  // jobs_due (a few rows: at most the agents' slots). A job stored before this
  // step has turn 0, the first round, as every job of a route without fair_by.
  `ALTER TABLE jobs ADD COLUMN fair_key TEXT;
   ALTER TABLE jobs ADD COLUMN turn INTEGER NOT NULL DEFAULT 0;
   ALTER TABLE jobs ADD COLUMN start_by INTEGER;
   CREATE INDEX jobs_turn ON jobs (turn, not_before) WHERE state = 'queued';
   CREATE INDEX jobs_fair_key ON jobs (fair_key, turn) WHERE state = 'queued' AND fair_key IS NOT NULL;`,
  // What the job's agent runs used (tokens, cost), as the JSON of a RunUsage; NULL before any run reported it.
  `ALTER TABLE jobs ADD COLUMN usage TEXT;`,
]

/** The schema version this code writes. */
export const SCHEMA_VERSION = MIGRATIONS.length

/** Brings the schema of `db` up to {@link SCHEMA_VERSION}. */
export function migrate(db: Database.Database, path: string): void {
  const version = () => db.pragma('user_version', { simple: true }) as number
  const found = version()
  if (found > SCHEMA_VERSION) {
    throw stateError(path, `it was written by a newer hookpilot (schema version ${found}; this one knows up to ${SCHEMA_VERSION})`, undefined, 'Upgrade hookpilot, or point state.path at another file.')
  }
  // The version is read again inside each step's write lock: two processes starting together on a new file
  // take turns, and the second finds the step done instead of running it twice.
  const step = db.transaction(() => {
    const v = version()
    if (v >= SCHEMA_VERSION) return false
    db.exec(MIGRATIONS[v] ?? '')
    db.pragma(`user_version = ${v + 1}`)
    return true
  })
  while (step.immediate()) {
    // one step per transaction, until the schema is current
  }
}
