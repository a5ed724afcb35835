import { describe, expect, it } from 'vitest';
import { Rng } from '../core/rng.ts';
import { householdTasks } from '../envs/household/tasks.ts';
import { uniformSchedule } from './schedule.ts';

const tasks = householdTasks('train', 30);

describe('uniformSchedule', () => {
  it('picks exactly the tasks the trainer has always sampled for an iteration', async () => {
    const schedule = uniformSchedule(tasks, 3);
    for (const iteration of [0, 1, 7]) {
      const trainers = new Rng(3).fork('iteration', iteration).sample(tasks, 10);
      expect(await schedule.next(iteration, 10)).toEqual(trainers);
    }
  });

  it('gives distinct tasks, other ones each iteration, and all of them when asked for more', async () => {
    const schedule = uniformSchedule(tasks, 3);
    const [a, b] = [await schedule.next(0, 10), await schedule.next(1, 10)];
    expect(new Set(a.map((t) => t.id)).size).toBe(10);
    expect(b).not.toEqual(a);
    expect(await schedule.next(0, 50)).toHaveLength(30);
    expect(schedule.record).toBeUndefined();
  });
});
