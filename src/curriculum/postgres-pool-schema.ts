import type pg from 'pg';
import { TaskPoolSchemaError } from './pool-errors.ts';

/** The PostgreSQL task-pool schema version this code writes; in `curriculum_meta`. */
export const PG_POOL_SCHEMA_VERSION = 1;

/**
 * Migrations by target version, append only. The tables are those of the SQLite pool
 * (`pool-schema.ts`) with a `curriculum_` prefix, so that the pool can live in the replay
 * buffer's database (which has a `tasks` table of its own). Columns are INTEGER where SQLite's
 * are, so both databases answer with the same row shapes.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE curriculum_tasks (
     seq INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     env TEXT NOT NULL,
     origin TEXT NOT NULL CHECK (origin IN ('seed', 'generated')),
     parent_id TEXT REFERENCES curriculum_tasks(id),
     realizable INTEGER NOT NULL,
     created_iteration INTEGER,
     json TEXT NOT NULL
   );
   CREATE TABLE curriculum_groups (
     iteration INTEGER NOT NULL,
     task_id TEXT NOT NULL REFERENCES curriculum_tasks(id),
     attempts INTEGER NOT NULL,
     reward_sum DOUBLE PRECISION NOT NULL,
     reward_square_sum DOUBLE PRECISION NOT NULL,
     successes INTEGER NOT NULL,
     PRIMARY KEY (iteration, task_id)
   );
   CREATE TABLE curriculum_batches (
     iteration INTEGER PRIMARY KEY,
     group_size INTEGER NOT NULL,
     task_ids TEXT NOT NULL,
     slots INTEGER NOT NULL,
     handed_out INTEGER NOT NULL DEFAULT 0
   );`,
];

/**
 * Advisory-lock key of task adds (and migrations): adds commit one at a time, so `seq` grows in
 * commit order and a handle catches up by reading the rows after the last `seq` it saw. Not the
 * replay buffer's key (`WRITE_LOCK`), as both may share a database.
 */
export const POOL_WRITE_LOCK = 7_305_113_772;

/** Advisory-lock key held while one handle makes the next batch (see `TaskPool.startBatch`). */
export const POOL_BATCH_LOCK = 7_305_113_773;

/**
 * Brings a database up to {@link PG_POOL_SCHEMA_VERSION} in one transaction, under the write
 * lock, so that instances opening a new pool together create it once. Refuses a newer schema.
 */
export async function migratePostgresPool(client: pg.PoolClient, where: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [POOL_WRITE_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS curriculum_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)',
    );
    const row = await client.query(
      "SELECT value FROM curriculum_meta WHERE key = 'schema_version'",
    );
    const version = Number(row.rows[0]?.value ?? 0);
    if (version > PG_POOL_SCHEMA_VERSION) {
      throw new TaskPoolSchemaError(
        `${where} has task-pool schema version ${version}, but this dreamgym reads up to version ${PG_POOL_SCHEMA_VERSION}. Upgrade dreamgym to open it.`,
      );
    }
    for (let v = version; v < PG_POOL_SCHEMA_VERSION; v++) {
      await client.query(MIGRATIONS[v] as string);
    }
    await client.query(
      "INSERT INTO curriculum_meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      [String(PG_POOL_SCHEMA_VERSION)],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}
