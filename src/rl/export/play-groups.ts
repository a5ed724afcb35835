import { Rng } from '../../core/rng.ts';
import type { Provenance, Task, Trajectory } from '../../core/types.ts';
import { runEpisode } from '../../data/episode.ts';
import type { Env } from '../../envs/env.ts';
import type { Policy } from '../../policy/policy.ts';

export interface PlayGroupsOptions {
  /** Makes one env per concurrent worker. */
  makeEnv: () => Env;
  policy: Policy;
  tasks: readonly Task[];
  /** Episodes per task (GRPO's G). */
  groupSize: number;
  /** Episodes in flight at once: LLM policies spend most of their time waiting. Default 1. */
  concurrency?: number;
  /** Each episode's seed derives from this, its task index and its member index. */
  seed: number;
  provenance: Provenance;
  onEpisode?: (trajectory: Trajectory) => void;
}

/**
 * Plays `groupSize` episodes per task for an export. Seeds are derived as `rollout` in
 * `rl/rollout.ts` derives them, so the same seed plays the same episodes; unlike `rollout`, it
 * asks the policy nothing after a truncation (an export needs no value bootstrap, and for an LLM
 * policy that would be one more model call per episode). Episode ids name their place
 * (`<task id>#<member>@<seed>`) instead of being random, so exports are reproducible; results come
 * back in (task, member) order whatever the concurrency.
 */
export async function playGroups(options: PlayGroupsOptions): Promise<Trajectory[]> {
  const { tasks, groupSize } = options;
  const jobs = tasks.flatMap((task, i) =>
    Array.from({ length: groupSize }, (_, g) => ({ task, i, g })),
  );
  const results = new Array<Trajectory>(jobs.length);
  const root = new Rng(options.seed);
  let next = 0;
  const worker = async () => {
    const env = options.makeEnv();
    try {
      for (let j = next++; j < jobs.length; j = next++) {
        const { task, i, g } = jobs[j] as (typeof jobs)[number];
        const trajectory = await runEpisode(env, options.policy, {
          task,
          seed: root.fork('rollout', i, g).uint32(),
          provenance: options.provenance,
        });
        trajectory.id = `${task.id}#${g}@${options.seed}`;
        results[j] = trajectory;
        options.onEpisode?.(trajectory);
      }
    } finally {
      await env.close();
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency ?? 1, jobs.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}
