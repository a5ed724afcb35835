import { Rng } from '../core/rng.ts';
import type { Provenance, Step, Task, Trajectory } from '../core/types.ts';
import type { Env } from '../envs/env.ts';
import type { Policy, RecordedDecision } from '../policy/policy.ts';
import { runEpisode } from './episode.ts';

/** One step of a rollout, with what the policy said at sampling time. */
export interface RolloutStep extends RecordedDecision {
  reward: number;
  terminated: boolean;
  truncated: boolean;
  /** log π_old(action | state), recorded when the action was sampled. */
  logProb: number;
  /** V_old(state). */
  value: number;
}

/** One episode of a rollout, with what training needs beside the trajectory. */
export interface RolloutEpisode {
  trajectory: Trajectory;
  /** The task id: GRPO compares episodes of the same group. */
  groupId: string;
  steps: RolloutStep[];
  /** V(s_T) after the last step when the episode was truncated, else 0. */
  bootstrapValue: number;
}

/** What to roll out: env, policy, tasks, group size and concurrency. */
export interface RolloutOptions {
  /** Makes one env per concurrent worker. */
  makeEnv: () => Env;
  policy: Policy;
  tasks: readonly Task[];
  /** Episodes per task (GRPO's G). Default 1. */
  groupSize?: number;
  /** Episodes in flight at once; helps with envs that wait (LLM, HTTP). Default 1. */
  concurrency?: number;
  /** Each episode's seed derives from this, its task index and its group member index. */
  seed: number;
  provenance: Provenance;
  /** Called as each episode ends. */
  onEpisode?: (episode: RolloutEpisode) => void;
}

/**
 * Rolls out `groupSize` episodes per task, recording log-probabilities and values at sampling
 * time. Results come back in (task, member) order whatever the concurrency, and each episode's
 * seed depends only on its place, so the same seed gives the same rollouts.
 */
export async function rollout(options: RolloutOptions): Promise<RolloutEpisode[]> {
  const groupSize = options.groupSize ?? 1;
  const jobs = options.tasks.flatMap((task, i) =>
    Array.from({ length: groupSize }, (_, g) => ({ task, i, g })),
  );
  const results = new Array<RolloutEpisode>(jobs.length);
  const root = new Rng(options.seed);
  let next = 0;
  const worker = async () => {
    const env = options.makeEnv();
    try {
      for (let j = next++; j < jobs.length; j = next++) {
        const { task, i, g } = jobs[j] as (typeof jobs)[number];
        const episode = await rolloutEpisode(
          env,
          options,
          task,
          root.fork('rollout', i, g).uint32(),
        );
        // The id names the episode's place, so the same seed gives the same ids (reproducible exports).
        episode.trajectory.id = `${task.id}#${g}@${options.seed}`;
        results[j] = episode;
        options.onEpisode?.(results[j] as RolloutEpisode);
      }
    } finally {
      await env.close();
    }
  };
  await Promise.all(
    Array.from({ length: Math.max(1, Math.min(options.concurrency ?? 1, jobs.length)) }, worker),
  );
  return results;
}

async function rolloutEpisode(
  env: Env,
  options: RolloutOptions,
  task: Task,
  seed: number,
): Promise<RolloutEpisode> {
  const logProbs: number[] = [];
  const values: number[] = [];
  const trajectory = await runEpisode(env, options.policy, {
    task,
    seed,
    provenance: options.provenance,
    onDecision: (decision) => {
      logProbs.push(decision.logProb ?? 0);
      values.push(decision.value ?? 0);
    },
  });
  const history: string[] = [];
  const replies = trajectory.steps.map((s) => s.observation);
  const steps = trajectory.steps.map((step, t) => {
    const recorded: RolloutStep = {
      observation: t === 0 ? trajectory.initial : (trajectory.steps[t - 1] as Step).observation,
      history: [...history],
      observations: replies.slice(0, t),
      action: step.action,
      reward: step.reward,
      terminated: step.terminated,
      truncated: step.truncated,
      logProb: logProbs[t] as number,
      value: values[t] as number,
    };
    history.push(step.action);
    return recorded;
  });
  const last = trajectory.steps.at(-1);
  // V(s_T) of a cut-off episode, from policies with a value head only (an LLM policy would
  // spend a call on an action nobody takes); a failure there leaves the bootstrap at 0.
  let bootstrapValue = 0;
  if (
    last?.truncated &&
    (last.observation.actions?.length ?? 0) > 0 &&
    'evaluate' in options.policy
  ) {
    const rng = new Rng(seed).fork('bootstrap');
    bootstrapValue =
      (
        await options.policy
          .act(last.observation, { task, history: trajectory.steps, rng })
          .catch(() => undefined)
      )?.value ?? 0;
  }
  return { trajectory, groupId: task.id, steps, bootstrapValue };
}
