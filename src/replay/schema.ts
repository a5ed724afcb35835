import type Database from 'better-sqlite3';
import { DreamGymError } from '../core/errors.ts';

/** The schema version this code writes; stored in `PRAGMA user_version`. */
export const SCHEMA_VERSION = 1;

/** The database was written by a newer dreamgym, or its vectors come from another embedder. */
export class BufferSchemaError extends DreamGymError {
  override name = 'BufferSchemaError';
}

/**
 * Migrations by target version: `MIGRATIONS[v - 1]` takes a database from version v - 1 to v.
 * Append only; never edit a released migration.
 *
 * Observations are stored once each, keyed by a 64-bit hash of their JSON (the first 8 bytes of its
 * SHA-1; an integer key inserts twice as fast as a text one): pages repeat a lot (every episode of
 * a task starts on the same page) and each step's next state is the next step's state.
 */
const MIGRATIONS: Array<(db: Database.Database, dimensions: number) => void> = [
  (db, dimensions) => {
    db.exec(`
      CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE tasks (
        id TEXT PRIMARY KEY,
        env TEXT NOT NULL,
        json TEXT NOT NULL
      );
      CREATE TABLE observations (
        id INTEGER PRIMARY KEY,
        hash INTEGER NOT NULL UNIQUE,
        json TEXT NOT NULL
      );
      CREATE TABLE trajectories (
        rowid INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        env TEXT NOT NULL,
        task_id TEXT NOT NULL REFERENCES tasks(id),
        provenance TEXT NOT NULL,
        policy_id TEXT NOT NULL,
        seed INTEGER,
        started_at TEXT NOT NULL,
        ended_at TEXT NOT NULL,
        added_at TEXT NOT NULL,
        initial_observation INTEGER NOT NULL REFERENCES observations(id),
        steps INTEGER NOT NULL,
        final_reward REAL NOT NULL,
        success INTEGER NOT NULL
      );
      CREATE INDEX trajectories_by_env ON trajectories(env, provenance);
      CREATE TABLE transitions (
        rowid INTEGER PRIMARY KEY,
        trajectory INTEGER NOT NULL REFERENCES trajectories(rowid),
        t INTEGER NOT NULL,
        state INTEGER NOT NULL REFERENCES observations(id),
        action TEXT NOT NULL,
        next_state INTEGER NOT NULL REFERENCES observations(id),
        reward REAL NOT NULL,
        terminated INTEGER NOT NULL,
        truncated INTEGER NOT NULL,
        reasoning TEXT,
        info TEXT,
        provenance TEXT NOT NULL,
        UNIQUE (trajectory, t)
      );
      CREATE VIRTUAL TABLE transition_vectors USING vec0(
        embedding float[${dimensions}] distance_metric=cosine,
        env text,
        provenance text,
        success integer,
        trajectory integer
      );
    `);
  },
];

/**
 * Brings a database up to {@link SCHEMA_VERSION}, creating it if empty, in one transaction.
 * Refuses a database from a newer dreamgym rather than misreading it.
 */
export function migrate(db: Database.Database, dimensions: number, file: string): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    throw new BufferSchemaError(
      `${file} has replay-buffer schema version ${version}, but this dreamgym reads up to version ${SCHEMA_VERSION}. Upgrade dreamgym to open it.`,
    );
  }
  if (version === SCHEMA_VERSION) return;
  db.transaction(() => {
    for (let v = version; v < SCHEMA_VERSION; v++)
      (MIGRATIONS[v] as (typeof MIGRATIONS)[number])(db, dimensions);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  })();
}
