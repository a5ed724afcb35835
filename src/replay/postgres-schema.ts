import type pg from 'pg';
import { BufferSchemaError } from './schema.ts';

/** The PostgreSQL schema version this code writes; stored in `meta` as `schema_version`. */
export const PG_SCHEMA_VERSION = 2;

/**
 * Migrations by target version, as in the SQLite schema (`schema.ts`): append only. The same
 * ideas: observations stored once, keyed by a 64-bit hash of their JSON; provenance and policy
 * id on every trajectory; each transition's vector (float32 bytes) and filter columns beside it,
 * so that a process can build its ANN index from this table alone, in `rowid` order.
 */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE tasks (id TEXT PRIMARY KEY, env TEXT NOT NULL, json TEXT NOT NULL);
   CREATE TABLE observations (id BIGSERIAL PRIMARY KEY, hash BIGINT NOT NULL UNIQUE, json TEXT NOT NULL);
   CREATE TABLE trajectories (
     rowid BIGSERIAL PRIMARY KEY,
     id TEXT NOT NULL UNIQUE,
     env TEXT NOT NULL,
     task_id TEXT NOT NULL REFERENCES tasks(id),
     provenance TEXT NOT NULL,
     policy_id TEXT NOT NULL,
     seed BIGINT,
     started_at TEXT NOT NULL,
     ended_at TEXT NOT NULL,
     added_at TEXT NOT NULL,
     initial_observation BIGINT NOT NULL REFERENCES observations(id),
     steps INTEGER NOT NULL,
     final_reward DOUBLE PRECISION NOT NULL,
     success BOOLEAN NOT NULL
   );
   CREATE INDEX trajectories_by_env ON trajectories(env, provenance);
   CREATE TABLE transitions (
     rowid BIGSERIAL PRIMARY KEY,
     trajectory BIGINT NOT NULL REFERENCES trajectories(rowid),
     t INTEGER NOT NULL,
     state BIGINT NOT NULL REFERENCES observations(id),
     action TEXT NOT NULL,
     next_state BIGINT NOT NULL REFERENCES observations(id),
     reward DOUBLE PRECISION NOT NULL,
     terminated BOOLEAN NOT NULL,
     truncated BOOLEAN NOT NULL,
     reasoning TEXT,
     info TEXT,
     provenance TEXT NOT NULL,
     env TEXT NOT NULL,
     success BOOLEAN NOT NULL,
     embedding BYTEA NOT NULL,
     UNIQUE (trajectory, t)
   );`,
  // 2: where pgvector is installed, `transitions.vec` and its HNSW indexes (`enablePgvector`, not
  // a migration, for the extension may come later than the database). Writers of version 2 fill
  // `vec` whenever it exists; a version 1 writer would leave it empty, so it must refuse.
  '-- transitions.vec is added by enablePgvector where pgvector is installed',
];

/** Key of the advisory lock that migrations and adds take (see `PostgresReplayBuffer`). */
export const WRITE_LOCK = 7_305_113_771;

/**
 * Brings a database up to {@link PG_SCHEMA_VERSION} in one transaction, under the write lock, so
 * that processes opening a new buffer together create it once. Refuses a newer schema.
 */
export async function migratePostgres(client: pg.PoolClient, where: string): Promise<void> {
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)',
    );
    const row = await client.query("SELECT value FROM meta WHERE key = 'schema_version'");
    const version = Number(row.rows[0]?.value ?? 0);
    if (version > PG_SCHEMA_VERSION) {
      throw new BufferSchemaError(
        `${where} has replay-buffer schema version ${version}, but this dreamgym reads up to version ${PG_SCHEMA_VERSION}. Upgrade dreamgym to open it.`,
      );
    }
    for (let v = version; v < PG_SCHEMA_VERSION; v++) await client.query(MIGRATIONS[v] as string);
    await client.query(
      "INSERT INTO meta (key, value) VALUES ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      [String(PG_SCHEMA_VERSION)],
    );
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw error;
  }
}
