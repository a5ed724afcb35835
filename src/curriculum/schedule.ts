/**
 * What the trainer asks for its tasks. The trainer knows nothing of pools, generators or LLMs: it
 * asks a schedule for each iteration's tasks and tells it the outcome rewards of the rollouts.
 */
import { Rng } from '../core/rng.ts';
import type { Task } from '../core/types.ts';

/** Chooses each iteration's training tasks and hears how their episodes went. */
export interface TaskSchedule {
  /** The `count` distinct tasks to roll out in `iteration` (fewer if there are not that many). */
  next(iteration: number, count: number): Task[] | Promise<Task[]>;
  /** The outcome reward of every episode of the iteration just collected, by task. */
  record?(episodes: Array<{ taskId: string; reward: number }>): void | Promise<void>;
}

/**
 * Uniform sampling without replacement from a fixed task list, with the stream the trainer
 * has always used (`new Rng(seed).fork('iteration', i)`), so it picks the tasks it always picked.
 */
export function uniformSchedule(tasks: readonly Task[], seed: number): TaskSchedule {
  return {
    next: (iteration, count) => new Rng(seed).fork('iteration', iteration).sample(tasks, count),
  };
}
