import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import { householdTask } from '../../envs/household/tasks.ts';
import { SqliteTaskPool } from '../sqlite-task-pool.ts';
import { offlineMutators } from './offline-mutators.ts';

describe('offlineMutators', () => {
  it('varies a task with its own env\u2019s mutator', async () => {
    const parent = householdTask(500);
    const pool = SqliteTaskPool.open();
    await pool.add([parent]);
    const { tasks } = await offlineMutators.generate({ parent, count: 2, pool, rng: new Rng(0) });
    expect(tasks).toHaveLength(2);
    expect(tasks.every((t) => t.env === 'household' && t.parentId === parent.id)).toBe(true);
  });

  it('says which envs it knows when the parent is of another', async () => {
    const parent: Task = {
      id: 'x/1',
      env: 'pick-bandit',
      instruction: 'pick the red mug',
      spec: {},
      origin: 'seed',
    };
    const result = await offlineMutators.generate({
      parent,
      count: 2,
      pool: SqliteTaskPool.open(),
      rng: new Rng(0),
    });
    expect(result.tasks).toEqual([]);
    expect(result.warnings[0]).toMatch(
      /no offline mutator for env "pick-bandit" \(available: webshop, household\)/,
    );
  });
});
