import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import type { Task } from '../core/types.ts';
import type { TaskSource } from './env.ts';
import { episodeTasks } from './episode-tasks.ts';

const task = (i: number): Task => ({
  id: `t${i}`,
  env: 'test',
  instruction: `task ${i}`,
  origin: 'seed',
});

/** A split of `size` tasks that refuses more, as WebArena, MCP and AgentGym sources do. */
function fixed(size: number): TaskSource {
  return {
    tasks: (_split, count = size) => {
      if (count > size) throw new ConfigError(`the split has ${size} tasks; asked for ${count}.`);
      return Array.from({ length: count }, (_, i) => task(i));
    },
  };
}

/** A split that makes as many tasks as asked, as generated goals do. */
const openEnded: TaskSource = {
  tasks: (_split, count = 10) => Array.from({ length: count }, (_, i) => task(i)),
};

const ids = (tasks: readonly Task[]) => tasks.map((t) => t.id);

describe('episodeTasks', () => {
  it('takes the first tasks when the split has enough, distinct ones from an open-ended split', () => {
    expect(episodeTasks(fixed(5), 'train', 3, 0)).toEqual({
      tasks: [task(0), task(1), task(2)],
      distinct: 3,
      cycled: false,
    });
    const many = episodeTasks(openEnded, 'train', 25, 0);
    expect(many.cycled).toBe(false);
    expect(new Set(ids(many.tasks)).size).toBe(25);
  });

  it('cycles through a small split, each task as often as the others, in a seeded order', () => {
    const four = episodeTasks(fixed(2), 'train', 4, 7);
    expect(four.cycled).toBe(true);
    expect(four.distinct).toBe(2);
    expect(ids(four.tasks).sort()).toEqual(['t0', 't0', 't1', 't1']);
    const seven = episodeTasks(fixed(3), 'test', 7, 1);
    const counts = new Map<string, number>();
    for (const id of ids(seven.tasks)) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect([...counts.values()].sort()).toEqual([2, 2, 3]);
    // Each pass holds every task once.
    expect(new Set(ids(seven.tasks.slice(0, 3))).size).toBe(3);
    expect(new Set(ids(seven.tasks.slice(3, 6))).size).toBe(3);
    expect(episodeTasks(fixed(3), 'test', 7, 1)).toEqual(seven);
    const orders = new Set(
      [0, 1, 2, 3, 4, 5, 6, 7].map((seed) =>
        ids(episodeTasks(fixed(3), 'test', 7, seed).tasks).join(),
      ),
    );
    expect(orders.size).toBeGreaterThan(1);
  });

  it('refuses an empty split, and passes on a refusal the split size does not explain', () => {
    expect(() => episodeTasks(fixed(0), 'test', 2, 0)).toThrow(
      /the test split has no tasks; use the other split/,
    );
    const picky: TaskSource = {
      tasks: (_split, count) => {
        if (count === 3) throw new ConfigError('three is unlucky');
        return Array.from({ length: count ?? 5 }, (_, i) => task(i));
      },
    };
    expect(() => episodeTasks(picky, 'train', 3, 0)).toThrow('three is unlucky');
  });
});
