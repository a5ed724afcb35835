import { ConfigError, TaskError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import type { TaskSource, TaskSplit } from '../env.ts';

/**
 * What a task is on an OpenEnv server: the keywords of its reset. OpenEnv's reset takes `seed`
 * and `episode_id` and whatever keywords the env's own `reset` declares (the server drops the
 * rest), so a task's `spec` *is* those keywords, sent as they are. The seeded tasks below are
 * `{ seed: n }`; a user's tasks may add the env's own keywords (`{ seed: 3, difficulty: "hard" }`).
 * The instruction is known only once the server has reset to the task, so seeded tasks have an
 * empty one until `reset` returns them filled in.
 */

/** Seeds `start` (inclusive) to `end` (exclusive). */
export interface SeedRange {
  start: number;
  end: number;
}

/**
 * The seeds of each split: train 0–999, test 1000–1199. Disjoint, so test episodes are held out
 * wherever the server's env draws its episode from the seed; a server that ignores seeds gives
 * the same episode for every task.
 */
export const OPENENV_SPLITS: Record<TaskSplit, SeedRange> = {
  train: { start: 0, end: 1000 },
  test: { start: 1000, end: 1200 },
};

/** The seeded task `seed` of env family `family`. */
export function openenvTask(family: string, seed: number, instruction = ''): Task {
  if (!Number.isInteger(seed) || seed < 0) {
    throw new ConfigError(`an OpenEnv seed must be a whole number ≥ 0, got ${seed}.`);
  }
  return { id: `${family}/seed-${seed}`, env: family, instruction, spec: { seed }, origin: 'seed' };
}

/** The reset keywords of a task, or a {@link TaskError} saying why this env cannot run it. */
export function resetKeywords(task: Task, family: string): Record<string, unknown> {
  if (task.env !== family) {
    throw new TaskError(`task ${task.id} is for env "${task.env}", not "${family}".`);
  }
  if (!task.spec) {
    throw new TaskError(
      `task ${task.id} has no spec (the server's reset keywords, e.g. { "seed": 3 }); a generated task without one can only run in a synthetic env.`,
    );
  }
  return { ...task.spec };
}

/** The seeded task splits of one OpenEnv server: a range of seeds each, and draws by seed. */
export class OpenEnvTaskSource implements TaskSource {
  readonly splits: Record<TaskSplit, SeedRange>;

  constructor(
    readonly family: string,
    splits: Partial<Record<TaskSplit, SeedRange>> = {},
  ) {
    this.splits = { ...OPENENV_SPLITS, ...splits };
    for (const [split, range] of Object.entries(this.splits)) {
      if (!Number.isInteger(range.start) || range.start < 0 || !(range.end > range.start)) {
        throw new ConfigError(
          `OpenEnv ${split} split: need whole numbers 0 ≤ start < end, got ${range.start}–${range.end}.`,
        );
      }
    }
  }

  tasks(split: TaskSplit, count?: number): Task[] {
    const { start, end } = this.splits[split];
    const size = end - start;
    const wanted = count ?? size;
    if (wanted > size) {
      throw new ConfigError(
        `the OpenEnv ${split} split has ${size} tasks (seeds ${start}–${end - 1}); asked for ${wanted}.`,
      );
    }
    return Array.from({ length: wanted }, (_, k) => openenvTask(this.family, start + k));
  }

  /** The task `reset({ seed })` runs: uniform over the split, fixed by the seed. */
  draw(split: TaskSplit, seed: number): Task {
    const { start, end } = this.splits[split];
    return openenvTask(this.family, start + new Rng(seed).fork('openenv-task').int(end - start));
  }
}
