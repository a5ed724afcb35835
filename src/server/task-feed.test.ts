import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Task, Trajectory } from '../core/types.ts';
import { Curriculum } from '../curriculum/curriculum.ts';
import { offlineMutators } from '../curriculum/generators/offline-mutators.ts';
import { TaskPool } from '../curriculum/task-pool.ts';
import { envEntry } from '../envs/registry.ts';
import { TaskFeed } from './task-feed.ts';

const seeds = envEntry('webshop').tasks({}).tasks('train', 40);

function feedOver(pool: TaskPool, groupSize: number, batchTasks: number) {
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
    const feed = feedOver(TaskPool.open(), 3, 2);
    // Asked all at once, as a trainer's parallel resets do.
    const first = await Promise.all(Array.from({ length: 6 }, () => feed.next()));
    const ids = first.map((t) => t.id);
    expect(ids.slice(0, 3)).toEqual([ids[0], ids[0], ids[0]]);
    expect(ids.slice(3)).toEqual([ids[3], ids[3], ids[3]]);
    expect(ids[0]).not.toBe(ids[3]);
    expect(feed.nextIteration).toBe(1);
    await feed.next(); // the next iteration's first group
    expect(feed.nextIteration).toBe(2);
  });

  it('files finished episodes’ rewards as groups of their iteration, which steer the next batches', async () => {
    const pool = TaskPool.open();
    const feed = feedOver(pool, 2, 2);
    const [a, , b] = await Promise.all(Array.from({ length: 4 }, () => feed.next()));
    expect(feed.record(episode(a as Task, 1))).toBe(true);
    expect(feed.record(episode(a as Task, 0))).toBe(true);
    expect(feed.record(episode(b as Task, 0))).toBe(true);
    expect(feed.record(episode(seeds[39] as Task, 1))).toBe(false); // not handed out
    const groups = pool.groups(0);
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
    const pool = TaskPool.open({ path });
    const feed = feedOver(pool, 1, 2);
    for (let i = 0; i < 4; i++) feed.record(episode(await feed.next(), i % 2));
    expect(feed.nextIteration).toBe(2);
    pool.close();
    const reopened = TaskPool.open({ path });
    expect(feedOver(reopened, 1, 2).nextIteration).toBe(2);
    expect(reopened.groups(1)).toHaveLength(2);
    reopened.close();
  });

  it('refuses a group size that is not a positive integer, naming it', () => {
    expect(() => feedOver(TaskPool.open(), 0, 2)).toThrow(/groupSize must be a positive integer/);
  });
});
