import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import type { Task } from '../core/types.ts';
import { householdTasks } from '../envs/household/tasks.ts';
import { POOL_SCHEMA_VERSION, TaskPoolSchemaError } from './pool-schema.ts';
import { generatedTask } from './task-identity.ts';
import { TaskPool } from './task-pool.ts';

const seeds = householdTasks('train', 6);
const first = seeds[0] as Task;

describe('TaskPool', () => {
  it('holds seed and generated tasks with their parents and whether a real env can build them', () => {
    const pool = TaskPool.open();
    expect(pool.add(seeds)).toHaveLength(6);
    const synthetic = generatedTask(first, 'put two clean mugs in the fridge and close it.');
    const realizable = generatedTask(first, 'put a apple in countertop.', {
      ...first.spec,
      goal: { type: 'pick_and_place', object: 'apple', receptacle: 'countertop' },
    });
    expect(pool.add([synthetic, realizable], 3)).toHaveLength(2);
    expect(pool.size).toBe(8);
    expect(pool.get(synthetic.id)).toEqual({
      task: synthetic,
      realizable: false,
      createdIteration: 3,
    });
    expect(pool.get(realizable.id)?.realizable).toBe(true);
    expect(pool.get(first.id)).toEqual({ task: first, realizable: true });
    expect(pool.tasks({ origin: 'generated' }).map((e) => e.task.parentId)).toEqual([
      first.id,
      first.id,
    ]);
    expect(pool.tasks({ realizable: false }).map((e) => e.task.id)).toEqual([synthetic.id]);
    expect(pool.tasks({ before: 3 })).toHaveLength(6);
    expect(pool.tasks({ before: 4 })).toHaveLength(8);
    expect(pool.tasks({ env: 'webshop' })).toHaveLength(0);
  });

  it('skips known ids and generated duplicates, by identity or by wording', () => {
    const pool = TaskPool.open();
    pool.add(seeds);
    expect(pool.add(seeds)).toEqual([]);
    const rephrased = generatedTask(first, 'a different wording', first.spec);
    expect(pool.isDuplicate(rephrased)).toBe(true);
    const sameWords = generatedTask(first, `  ${first.instruction.toUpperCase()}!`);
    expect(pool.isDuplicate(sameWords)).toBe(true);
    const fresh = generatedTask(first, 'put a hot potato in garbagecan.');
    expect(pool.add([rephrased, sameWords, fresh, fresh], 0)).toEqual([fresh]);
  });

  it('refuses a generated task whose parent it does not hold, and rollouts of unknown tasks', () => {
    const pool = TaskPool.open();
    expect(() => pool.add([generatedTask(first, 'put a hot potato in garbagecan.')])).toThrow(
      ConfigError,
    );
    expect(() => pool.recordGroups(0, [{ taskId: 'nope', reward: 1 }])).toThrow(
      /not in the task pool/,
    );
  });

  it('scores each rollout group by V = mean of (r − r̄)², and sums a task over iterations', () => {
    const pool = TaskPool.open();
    pool.add(seeds);
    const [a, b, c] = seeds.map((t) => t.id) as [string, string, string];
    pool.recordGroups(0, [
      ...[1, 0, 1, 0].map((reward) => ({ taskId: a, reward })),
      ...[1, 1, 1, 1].map((reward) => ({ taskId: b, reward })),
      ...[0.5, 0.5, 0, 1].map((reward) => ({ taskId: c, reward })),
    ]);
    const groups = Object.fromEntries(pool.groups(0).map((g) => [g.taskId, g]));
    expect(groups[a]).toMatchObject({ attempts: 4, meanReward: 0.5, variance: 0.25, successes: 2 });
    expect(groups[b]).toMatchObject({ meanReward: 1, variance: 0, successes: 4 });
    expect(groups[c]?.variance).toBeCloseTo(0.125, 12);
    expect(groups[c]?.successes).toBe(1);

    pool.recordGroups(
      2,
      [0, 0].map((reward) => ({ taskId: a, reward })),
    );
    expect(pool.taskStats(a)).toMatchObject({ attempts: 6, successes: 2 });
    expect(pool.taskStats(a).meanReward).toBeCloseTo(2 / 6, 12);
    expect(pool.taskStats(a).variance).toBeCloseTo(2 / 6 - (2 / 6) ** 2, 12);
    expect(pool.taskStats(seeds[5]?.id as string)).toEqual({
      attempts: 0,
      meanReward: 0,
      variance: 0,
      successes: 0,
    });
    expect(pool.lastRecordedIteration(2)).toBe(0);
    expect(pool.lastRecordedIteration(3)).toBe(2);
    expect(pool.lastRecordedIteration(0)).toBeUndefined();
  });

  it('re-recording an iteration replaces its groups instead of counting them twice', () => {
    const pool = TaskPool.open();
    pool.add(seeds);
    const taskId = first.id;
    pool.recordGroups(0, [
      { taskId, reward: 1 },
      { taskId, reward: 0 },
    ]);
    pool.recordGroups(0, [
      { taskId, reward: 1 },
      { taskId, reward: 1 },
    ]);
    expect(pool.taskStats(taskId)).toMatchObject({ attempts: 2, successes: 2 });
  });

  it('reports per iteration: pool size, generated tasks, informative share, mean V', () => {
    const pool = TaskPool.open();
    pool.add(seeds);
    const [a, b] = seeds.map((t) => t.id) as [string, string];
    pool.recordGroups(
      0,
      [1, 0, 1, 1].map((reward) => ({ taskId: a, reward })),
    );
    pool.recordGroups(
      0,
      [0, 0, 0, 0].map((reward) => ({ taskId: b, reward })),
    );
    const child = generatedTask(first, 'put a hot potato in garbagecan.');
    pool.add([child], 1);
    pool.recordGroups(
      1,
      [1, 0].map((reward) => ({ taskId: child.id, reward })),
    );
    expect(pool.iterationStats()).toEqual([
      {
        iteration: 0,
        poolSize: 6,
        generatedTasks: 0,
        newTasks: 0,
        tasksPlayed: 2,
        informativeShare: 0.5,
        meanVariance: (0.1875 + 0) / 2,
        meanReward: 3 / 8,
      },
      {
        iteration: 1,
        poolSize: 7,
        generatedTasks: 1,
        newTasks: 1,
        tasksPlayed: 1,
        informativeShare: 1,
        meanVariance: 0.25,
        meanReward: 0.5,
      },
    ]);
  });

  it('persists tasks, parents and rollouts in one file and reads them back in order', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dreamgym-pool-')), 'run', 'tasks.db');
    const pool = TaskPool.open({ path });
    pool.add(seeds);
    const children = [
      generatedTask(first, 'put a hot potato in garbagecan.'),
      generatedTask(seeds[1] as Task, 'put a cool tomato in diningtable.'),
    ];
    pool.add(children, 1);
    pool.recordGroups(1, [
      { taskId: children[0]?.id as string, reward: 1 },
      { taskId: children[0]?.id as string, reward: 0 },
      { taskId: first.id, reward: 0.5 },
    ]);
    const before = { tasks: pool.tasks(), stats: pool.iterationStats(), groups: pool.groups(1) };
    pool.close();

    // Read-only, as a viewer beside a live run reads it: the same, and writes refused.
    const reader = TaskPool.open({ path, readonly: true });
    expect(reader.iterationStats()).toEqual(before.stats);
    expect(reader.tasks()).toEqual(before.tasks);
    expect(() => reader.recordGroups(2, [{ taskId: first.id, reward: 1 }])).toThrow(/readonly/);
    reader.close();
    const missing = join(dirname(path), 'elsewhere', 'tasks.db');
    expect(() => TaskPool.open({ path: missing, readonly: true })).toThrow();
    expect(existsSync(dirname(missing))).toBe(false);

    const reopened = TaskPool.open({ path });
    expect(reopened.tasks()).toEqual(before.tasks);
    expect(reopened.iterationStats()).toEqual(before.stats);
    expect(reopened.groups(1)).toEqual(before.groups);
    expect(reopened.isDuplicate(generatedTask(first, 'PUT A HOT POTATO IN GARBAGECAN'))).toBe(true);
    reopened.close();
    const db = new Database(path, { readonly: true });
    expect(db.pragma('user_version', { simple: true })).toBe(POOL_SCHEMA_VERSION);
    db.close();
  });

  it('refuses a pool written by a newer dreamgym', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'dreamgym-pool-')), 'tasks.db');
    const db = new Database(path);
    db.pragma(`user_version = ${POOL_SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => TaskPool.open({ path })).toThrow(TaskPoolSchemaError);
  });
});
