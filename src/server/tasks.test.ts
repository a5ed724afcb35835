import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import type { Task } from '../core/types.ts';
import type { TaskSource, TaskSplit } from '../envs/env.ts';
import { RequestError } from './errors.ts';
import { TaskPicker } from './tasks.ts';

/** Tasks `t0, t1, …`; `size` caps the split like a fixed data set, else it is open-ended. */
function source(defaultCount: number, size = Number.POSITIVE_INFINITY) {
  const asked: number[] = [];
  const tasks: TaskSource = {
    tasks(_split: TaskSplit, count = defaultCount) {
      asked.push(count);
      if (count > size) throw new ConfigError(`the split has ${size} tasks; asked for ${count}.`);
      return Array.from({ length: count }, (_, i) => ({
        id: `t${i}`,
        env: 'toy',
        instruction: `task ${i}`,
        origin: 'seed' as const,
      }));
    },
  };
  return { tasks, asked };
}

describe('TaskPicker', () => {
  it('picks a task by index in the split, growing open-ended splits by doubling', async () => {
    const { tasks, asked } = source(10);
    const picker = new TaskPicker(tasks, 'train');
    expect((await picker.resetOptions({ taskIndex: 3 })).task?.id).toBe('t3');
    for (let i = 10; i < 200; i++) {
      expect((await picker.resetOptions({ taskIndex: i })).task?.id).toBe(`t${i}`);
    }
    expect(asked).toEqual([10, 20, 40, 80, 160, 320]);
  });

  it('asks a fixed-size split for just enough tasks, and names the field past its end', async () => {
    const { tasks } = source(10, 15);
    const picker = new TaskPicker(tasks, 'test');
    expect((await picker.resetOptions({ taskIndex: 14 })).task?.id).toBe('t14');
    const past = picker.resetOptions({ taskIndex: 15, field: 'game' });
    await expect(past).rejects.toBeInstanceOf(RequestError);
    await expect(past).rejects.toThrow(
      'game 15 is not a task of the test split: the split has 15 tasks; asked for 16.',
    );
  });

  it('without an index, asks the task provider, else seeds the env from a counter', async () => {
    const task: Task = { id: 'c', env: 'toy', instruction: 'curriculum', origin: 'generated' };
    const curriculum = new TaskPicker(source(5).tasks, 'train', () => task);
    expect(await curriculum.resetOptions({})).toEqual({ task, seed: 0 });
    const plain = new TaskPicker(source(5).tasks, 'train');
    expect(await plain.resetOptions({})).toEqual({ seed: 0 });
    expect(await plain.resetOptions({})).toEqual({ seed: 1 });
    expect(await plain.resetOptions({ seed: 42 })).toEqual({ seed: 42 });
  });
});
