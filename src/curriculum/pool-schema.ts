import type Database from 'better-sqlite3';
import { TaskPoolSchemaError } from './pool-errors.ts';

/** The task-pool schema version this code writes; stored in `PRAGMA user_version`. */
export const POOL_SCHEMA_VERSION = 2;

/**
 * Migrations by target version: `MIGRATIONS[v - 1]` takes a pool from version v - 1 to v. Append
 * only; never edit a released migration.
 *
 * `rollout_groups` keeps one row per task and iteration with sums (not the rewards themselves):
 * enough for the group's mean and variance, and summable across iterations for a task's totals.
 */
const MIGRATIONS: Array<(db: Database.Database) => void> = [
  (db) => {
    db.exec(`
      CREATE TABLE tasks (
        seq INTEGER PRIMARY KEY,
        id TEXT NOT NULL UNIQUE,
        env TEXT NOT NULL,
        origin TEXT NOT NULL CHECK (origin IN ('seed', 'generated')),
        parent_id TEXT REFERENCES tasks(id),
        realizable INTEGER NOT NULL,
        created_iteration INTEGER,
        json TEXT NOT NULL
      );
      CREATE TABLE rollout_groups (
        iteration INTEGER NOT NULL,
        task_id TEXT NOT NULL REFERENCES tasks(id),
        attempts INTEGER NOT NULL,
        reward_sum REAL NOT NULL,
        reward_square_sum REAL NOT NULL,
        successes INTEGER NOT NULL,
        PRIMARY KEY (iteration, task_id)
      );
    `);
  },
  // 2: the batches handed out to index-less resets, with how many of their slots are taken, so a
  // restarted server finishes the groups of its last batch.
  (db) => {
    db.exec(`
      CREATE TABLE batches (
        iteration INTEGER PRIMARY KEY,
        group_size INTEGER NOT NULL,
        task_ids TEXT NOT NULL,
        slots INTEGER NOT NULL,
        handed_out INTEGER NOT NULL DEFAULT 0
      );
    `);
  },
];

/** The pool's schema version; a newer one than this code reads is refused with the fix. */
export function checkPoolVersion(db: Database.Database, file: string): number {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > POOL_SCHEMA_VERSION) {
    throw new TaskPoolSchemaError(
      `${file} has task-pool schema version ${version}, but this dreamgym reads up to version ${POOL_SCHEMA_VERSION}. Upgrade dreamgym to open it.`,
    );
  }
  return version;
}

/** Brings a pool up to {@link POOL_SCHEMA_VERSION}, creating it if empty, in one transaction. */
export function migratePool(db: Database.Database, file: string): void {
  db.transaction(() => {
    const version = checkPoolVersion(db, file);
    for (let v = version; v < POOL_SCHEMA_VERSION; v++)
      (MIGRATIONS[v] as (typeof MIGRATIONS)[number])(db);
    if (version < POOL_SCHEMA_VERSION) db.pragma(`user_version = ${POOL_SCHEMA_VERSION}`);
  }).immediate();
}
