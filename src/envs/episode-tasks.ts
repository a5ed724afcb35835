import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import type { Task } from '../core/types.ts';
import type { TaskSource, TaskSplit } from './env.ts';

/** The task of each episode of a run, and whether the split had to be played more than once. */
export interface EpisodeTasks {
  /** One task per episode, in the order they run. */
  tasks: Task[];
  /** Distinct tasks among them. */
  distinct: number;
  /** True when the split has fewer tasks than episodes, so each task is played more than once. */
  cycled: boolean;
}

/**
 * The task of each of `episodes` episodes over a split: its first `episodes` tasks when it has
 * that many (open-ended splits make as many as asked), else all of its tasks again and again,
 * each pass in an order fixed by `seed`, so every task is played as often as the others, give or
 * take one. Repeated episodes of a task are how offline data are gathered from a noisy expert or
 * a sampling policy over a small task set (a WebArena config of two tasks, say).
 */
export function episodeTasks(
  source: TaskSource,
  split: TaskSplit,
  episodes: number,
  seed: number,
): EpisodeTasks {
  let refusal: unknown;
  try {
    const first = source.tasks(split, episodes);
    if (first.length >= episodes) {
      return { tasks: first.slice(0, episodes), distinct: episodes, cycled: false };
    }
  } catch (error) {
    // A split with fewer tasks refuses the count; its whole list is read below.
    refusal = error;
  }
  const all = source.tasks(split);
  if (all.length >= episodes) {
    if (refusal !== undefined) throw refusal;
    return { tasks: all.slice(0, episodes), distinct: episodes, cycled: false };
  }
  if (all.length === 0) {
    throw new ConfigError(`the ${split} split has no tasks; use the other split (--split).`);
  }
  const root = new Rng(seed).fork('episode-tasks');
  const tasks: Task[] = [];
  for (let pass = 0; tasks.length < episodes; pass++) {
    tasks.push(
      ...root
        .fork(pass)
        .shuffle(all)
        .slice(0, episodes - tasks.length),
    );
  }
  return { tasks, distinct: all.length, cycled: true };
}
