import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task, Trajectory } from '../core/types.ts';
import { Curriculum } from '../curriculum/curriculum.ts';
import { offlineMutators } from '../curriculum/generators/offline-mutators.ts';
import { SqliteTaskPool } from '../curriculum/sqlite-task-pool.ts';
import { envEntry } from '../envs/registry.ts';
import { TaskFeed } from './task-feed.ts';

const seeds = envEntry('webshop').tasks({}).tasks('train', 40);

function feedOver(pool: SqliteTaskPool, groupSize: number, batchTasks: number) {
  const schedule = new Curriculum(
    { pool, seedTasks: seeds, generator: offlineMutators },
    { mode: 'variance', seed: 3 },
  );
  return new TaskFeed({ schedule, pool, groupSize, batchTasks });
}

/** A finished one-step episode of `task` with this final reward. */
function episode(task: Task, reward: number): Trajectory {
  const observation = { text: 'page', instruction: task.instruction };
  return {
    id: `${task.id}-${Math.random()}`,
    env: 'webshop',
    task,
    initial: observation,
    steps: [{ action: 'click[buy now]', observation, reward, terminated: true, truncated: false }],
    provenance: 'synthetic',
    policyId: 'test',
    startedAt: '',
    endedAt: '',
  };
}

describe('TaskFeed', () => {
  it('hands each task to groupSize consecutive resets, a batch per iteration, concurrent or not', async () => {
    const feed = feedOver(SqliteTaskPool.open(), 3, 2);
    // Asked all at once, as a trainer's parallel resets do.
    const first = await Promise.all(Array.from({ length: 6 }, () => feed.next()));
    const ids = first.map((t) => t.id);
    expect(ids.slice(0, 3)).toEqual([ids[0], ids[0], ids[0]]);
    expect(ids.slice(3)).toEqual([ids[3], ids[3], ids[3]]);
    expect(ids[0]).not.toBe(ids[3]);
    expect(await feed.nextIteration()).toBe(1);
    await feed.next(); // the next iteration's first group
    expect(await feed.nextIteration()).toBe(2);
  });

  it('files finished episodes’ rewards as groups of their iteration, which steer the next batches', async () => {
    const pool = SqliteTaskPool.open();
    const feed = feedOver(pool, 2, 2);
    const [a, , b] = await Promise.all(Array.from({ length: 4 }, () => feed.next()));
    expect(await feed.record(episode(a as Task, 1))).toBe(true);
    expect(await feed.record(episode(a as Task, 0))).toBe(true);
    expect(await feed.record(episode(b as Task, 0))).toBe(true);
    expect(await feed.record(episode(seeds[39] as Task, 1))).toBe(false); // not handed out
    const groups = await pool.groups(0);
    const of = (task: Task | undefined) => groups.find((g) => g.taskId === task?.id);
    expect(of(a)).toMatchObject({ attempts: 2, successes: 1 });
    expect(of(a)?.variance).toBeGreaterThan(0);
    expect(of(b)).toMatchObject({ attempts: 1, successes: 0 });
    // Task a varied: the curriculum's next iteration generates variations of it.
    const next = await Promise.all(Array.from({ length: 4 }, () => feed.next()));
    expect(next.some((t) => t.origin !== 'seed' && t.parentId === a?.id)).toBe(true);
  });

  it('continues after a restart from the iteration the pool file got to', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dreamgym-feed-')), 'tasks.db');
    const pool = SqliteTaskPool.open({ path });
    const feed = feedOver(pool, 1, 2);
    for (let i = 0; i < 4; i++) await feed.record(episode(await feed.next(), i % 2));
    expect(await feed.nextIteration()).toBe(2);
    await pool.close();
    const reopened = SqliteTaskPool.open({ path });
    expect(await feedOver(reopened, 1, 2).nextIteration()).toBe(2);
    expect(await reopened.groups(1)).toHaveLength(2);
    await reopened.close();
  });

  it('after a restart mid-batch, hands out the rest of its groups', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dreamgym-feed-')), 'tasks.db');
    const pool = SqliteTaskPool.open({ path });
    const before = await Promise.all(Array.from({ length: 4 }, () => feedOver(pool, 3, 2).next()));
    await pool.close();
    const reopened = SqliteTaskPool.open({ path });
    const after = await Promise.all(
      Array.from({ length: 2 }, () => feedOver(reopened, 3, 2).next()),
    );
    expect([...before, ...after].map((t) => t.id)).toEqual([
      ...Array(3).fill(before[0]?.id),
      ...Array(3).fill(before[3]?.id),
    ]);
    await reopened.close();
  });

  it('feeds sharing a pool (server instances) hand out one sequence of groups and fill them together', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dreamgym-feed-')), 'tasks.db');
    const pools = [SqliteTaskPool.open({ path }), SqliteTaskPool.open({ path })];
    const [one, two] = pools.map((pool) => feedOver(pool, 4, 2)) as [TaskFeed, TaskFeed];
    const handed = await Promise.all(
      [0, 1, 2, 3, 4, 5, 6, 7].map((i) => (i % 2 ? one : two).next()),
    );
    const ids = handed.map((t) => t.id);
    expect(new Set(ids).size).toBe(2);
    expect(ids.filter((id) => id === ids[0])).toHaveLength(4);
    for (const [i, task] of handed.entries())
      await (i % 2 ? one : two).record(episode(task, i % 2));
    const groups = await (pools[0] as SqliteTaskPool).groups(0);
    expect(groups.map((g) => g.attempts)).toEqual([4, 4]);
    await Promise.all(pools.map((pool) => pool.close()));
  });

  it('refuses a group size that is not a positive integer, naming it', () => {
    expect(() => feedOver(SqliteTaskPool.open(), 0, 2)).toThrow(
      /groupSize must be a positive integer/,
    );
  });
});
