import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { Task } from '../core/types.ts';
import { householdTasks } from '../envs/household/tasks.ts';
import { runTaskPoolConformance } from './conformance.ts';
import { TaskPool } from './open-task-pool.ts';
import { TaskPoolLocationError, TaskPoolSchemaError } from './pool-errors.ts';
import { POOL_SCHEMA_VERSION } from './pool-schema.ts';
import { SqliteTaskPool } from './sqlite-task-pool.ts';
import { generatedTask } from './task-identity.ts';

const newFile = () => join(mkdtempSync(join(tmpdir(), 'dreamgym-pool-')), 'run', 'tasks.db');

runTaskPoolConformance(
  {
    name: 'SQLite file',
    open: async () => SqliteTaskPool.open({ path: newFile() }),
    openAgain: async (pool) => SqliteTaskPool.open({ path: pool.location }),
  },
  { describe, it },
);

const seeds = householdTasks('train', 6);
const first = seeds[0] as Task;

describe('the SQLite task pool', () => {
  it('knows which household variations a real env can build', async () => {
    const pool = SqliteTaskPool.open();
    await pool.add(seeds);
    const synthetic = generatedTask(first, 'put two clean mugs in the fridge and close it.');
    const realizable = generatedTask(first, 'put a apple in countertop.', {
      ...first.spec,
      goal: { type: 'pick_and_place', object: 'apple', receptacle: 'countertop' },
    });
    await pool.add([synthetic, realizable], 3);
    expect(pool.get(synthetic.id)?.realizable).toBe(false);
    expect(pool.get(realizable.id)?.realizable).toBe(true);
    expect(pool.get(first.id)).toEqual({ task: first, realizable: true });
    await pool.close();
  });

  it('opens read-only beside a live run: the same statistics, writes refused, nothing created', async () => {
    const path = newFile();
    const pool = SqliteTaskPool.open({ path });
    await pool.add(seeds);
    await pool.recordGroups(1, [
      { taskId: first.id, reward: 1 },
      { taskId: first.id, reward: 0 },
    ]);
    const stats = await pool.iterationStats();
    await pool.close();

    expect(SqliteTaskPool.readIterationStats(path)).toEqual(stats);
    const reader = SqliteTaskPool.open({ path, readonly: true });
    expect(reader.tasks()).toHaveLength(6);
    await expect(reader.recordGroups(2, [{ taskId: first.id, reward: 1 }])).rejects.toThrow(
      /readonly/,
    );
    await reader.close();
    const missing = join(dirname(path), 'elsewhere', 'tasks.db');
    expect(() => SqliteTaskPool.open({ path: missing, readonly: true })).toThrow();
    expect(existsSync(dirname(missing))).toBe(false);
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(POOL_SCHEMA_VERSION);
    db.close();
  });

  it('takes a version 1 pool (before batches) up to the current version, keeping its rows', async () => {
    const path = newFile();
    const pool = SqliteTaskPool.open({ path });
    await pool.add(seeds);
    await pool.recordGroups(0, [{ taskId: first.id, reward: 1 }]);
    await pool.close();
    const db = new Database(path);
    db.exec('DROP TABLE batches');
    db.pragma('user_version = 1');
    db.close();
    const upgraded = SqliteTaskPool.open({ path });
    expect(upgraded.size).toBe(6);
    expect(await upgraded.groups(0)).toHaveLength(1);
    expect(await upgraded.startBatch(2, async () => seeds.slice(0, 1))).toBe(1);
    expect((await upgraded.handOut())?.task).toEqual(first);
    await upgraded.close();
  });

  it('refuses a pool written by a newer dreamgym', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dreamgym-pool-')), 'tasks.db');
    const db = new Database(path);
    db.pragma(`user_version = ${POOL_SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => SqliteTaskPool.open({ path })).toThrow(TaskPoolSchemaError);
  });
});

describe('TaskPool.open', () => {
  it('opens a SQLite file or memory, and refuses URLs other than PostgreSQL’s with the choices', async () => {
    const file = await TaskPool.open({ location: newFile() });
    expect(file).toBeInstanceOf(SqliteTaskPool);
    await file.close();
    const memory = await TaskPool.open();
    expect(memory.location).toBe(':memory:');
    await memory.close();
    await expect(TaskPool.open({ location: 'mysql://me:secret@db/tasks' })).rejects.toThrow(
      TaskPoolLocationError,
    );
    await expect(TaskPool.open({ location: 'mysql://me:secret@db/tasks' })).rejects.toThrow(
      /me:\*\*\*@db.*postgres:\/\//,
    );
  });
});
