import { Rng } from '../core/rng.ts';
import type { Provenance, Task, Trajectory } from '../core/types.ts';
import type { Env } from '../envs/env.ts';
import type { Policy } from '../policy/policy.ts';
import { runEpisode } from './episode.ts';

/** The env, policy, tasks and number of episodes to collect. */
export interface CollectOptions {
  env: Env;
  policy: Policy;
  /** Tasks to run, in order; cycled when there are fewer tasks than episodes. */
  tasks: readonly Task[];
  episodes: number;
  /** Derives each episode's seed, so episode i is the same whatever ran before it. */
  seed: number;
  provenance: Provenance;
  /** Called after each episode (write it out, advance a progress bar). */
  onEpisode?: (trajectory: Trajectory, index: number) => void | Promise<void>;
}

/** Runs `episodes` episodes of a policy over a task list and returns their trajectories. */
export async function collect(options: CollectOptions): Promise<Trajectory[]> {
  if (options.tasks.length === 0) throw new Error('collect: the task list is empty.');
  const root = new Rng(options.seed);
  const out: Trajectory[] = [];
  for (let i = 0; i < options.episodes; i++) {
    const trajectory = await runEpisode(options.env, options.policy, {
      task: options.tasks[i % options.tasks.length] as Task,
      seed: root.fork('episode', i).uint32(),
      provenance: options.provenance,
    });
    out.push(trajectory);
    await options.onEpisode?.(trajectory, i);
  }
  return out;
}
