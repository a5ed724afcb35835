import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres } from '../replay/testing/postgres-server.ts';
import { runTaskPoolConformance } from './conformance.ts';
import { TaskPool } from './open-task-pool.ts';
import { TaskPoolConnectionError, TaskPoolSchemaError } from './pool-errors.ts';
import { PostgresTaskPool } from './postgres-task-pool.ts';

let server: TestPostgres;
beforeAll(async () => {
  server = await startTestPostgres();
}, 120_000);
afterAll(() => server?.stop());

/** The URL each open pool was opened with (its `location` hides the password). */
const urls = new WeakMap<object, string>();
const openAt = async (url: string) => {
  const pool = await PostgresTaskPool.open({ url });
  urls.set(pool, url);
  return pool;
};

runTaskPoolConformance(
  {
    name: 'PostgreSQL (Debian server)',
    open: async () => openAt(await server.newDatabase()),
    openAgain: async (pool) => openAt(urls.get(pool) as string),
  },
  { describe, it },
);

const worker = join(import.meta.dirname, 'testing/pool-worker.ts');

describe('the PostgreSQL task pool', () => {
  it('lives beside the replay buffer in one database, opened by URL', async () => {
    const url = await server.newDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    // The buffer's own `tasks` table is not the pool's.
    await client.query('CREATE TABLE tasks (id TEXT PRIMARY KEY, env TEXT NOT NULL, json TEXT)');
    await client.end();
    const pool = await TaskPool.open({ location: url });
    expect(pool).toBeInstanceOf(PostgresTaskPool);
    await pool.add([{ id: 'a', env: 'toy', instruction: 'do a', origin: 'seed' }]);
    expect(pool.size).toBe(1);
    await pool.close();
  });

  it('refuses a newer schema, and an unreachable server with the fix', async () => {
    const url = await server.newDatabase();
    await (await PostgresTaskPool.open({ url })).close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query("UPDATE curriculum_meta SET value = '99' WHERE key = 'schema_version'");
    await client.end();
    await expect(PostgresTaskPool.open({ url })).rejects.toThrow(TaskPoolSchemaError);
    const nowhere = 'postgres://me:secret@127.0.0.1:1/tasks';
    const refused = PostgresTaskPool.open({ url: nowhere });
    await expect(refused).rejects.toThrow(TaskPoolConnectionError);
    await expect(PostgresTaskPool.open({ url: nowhere })).rejects.toThrow(
      /me:\*\*\*@127\.0\.0\.1:1.*Check that the server runs/,
    );
  });

  it('4 processes take slots, make batches and file rewards at once: every slot once, groups whole, nothing lost', async () => {
    const url = await server.newDatabase();
    const run = (i: number) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', worker, url, String(i), '30'], {
        timeout: 110_000,
      }).then(({ stdout }) => JSON.parse(stdout.trim().split('\n').at(-1) as string));
    const results = (await Promise.all([0, 1, 2, 3].map(run))) as Array<{
      slots: Array<[number, number, string]>;
      made: number[];
    }>;
    const slots = results.flatMap((r) => r.slots);
    expect(new Set(slots.map(([iteration, slot]) => `${iteration}/${slot}`)).size).toBe(120);
    const made = results.flatMap((r) => r.made).sort((a, b) => a - b);
    expect(made).toEqual([...new Set(made)]);
    const pool = await PostgresTaskPool.open({ url });
    try {
      // Every slot of every full batch went to a reset, 3 to a task, and every reward counts.
      const iterations = [...new Set(slots.map(([iteration]) => iteration))];
      for (const iteration of iterations) {
        const groups = await pool.groups(iteration);
        const taken = slots.filter(([i]) => i === iteration).length;
        expect(groups.reduce((n, g) => n + g.attempts, 0)).toBe(taken);
        if (taken === 12) expect(groups.map((g) => g.attempts)).toEqual([3, 3, 3, 3]);
      }
      // Each process generated variations of the same parents; each is in the pool once.
      const generated = pool.tasks({ origin: 'generated' });
      expect(new Set(generated.map((e) => e.task.instruction)).size).toBe(generated.length);
      expect(generated.length).toBeGreaterThan(0);
    } finally {
      await pool.close();
    }
  }, 120_000);
});
