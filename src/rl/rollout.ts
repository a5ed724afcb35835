import { Rng } from '../core/rng.ts';
import type { Provenance, Step, Task, Trajectory } from '../core/types.ts';
import type { BranchPoint, Env } from '../envs/env.ts';
import type { Policy, RecordedDecision } from '../policy/policy.ts';
import { playEpisode } from './episode.ts';

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
  /**
   * GRPO compares episodes of the same group: the task id, or for a branched group
   * `from:<trajectory>#<step>`.
   */
  groupId: string;
  /** Where a branched episode started; absent for one started from its task. */
  branch?: BranchPoint;
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
  /**
   * Groups that start from recorded real states instead of tasks (a synthetic env's
   * `reset({ from })`): `groupSize` continuations of each, run after the task groups.
   */
  branches?: readonly Branch[];
}

/** A group's branch state and how many steps its continuations may take past it. */
export interface Branch {
  from: BranchPoint;
  /** Steps past the branch after which a continuation is cut off (`truncatedBy: 'horizon'`). */
  horizon: number;
}

/** One episode to play: from a task, or from a branch state. */
type Start = { task: Task; branch?: undefined } | { task?: undefined; branch: Branch };

/** The group id of a branched group. */
export function branchGroupId(from: BranchPoint): string {
  return `from:${from.trajectory}#${from.step}`;
}

/**
 * Rolls out `groupSize` episodes per task, recording log-probabilities and values at sampling
 * time. Results come back in (task, member) order whatever the concurrency, and each episode's
 * seed depends only on its place, so the same seed gives the same rollouts.
 */
export async function rollout(options: RolloutOptions): Promise<RolloutEpisode[]> {
  const groupSize = options.groupSize ?? 1;
  const starts: Start[] = [
    ...options.tasks.map((task) => ({ task })),
    ...(options.branches ?? []).map((branch) => ({ branch })),
  ];
  const jobs = starts.flatMap((start, i) =>
    Array.from({ length: groupSize }, (_, g) => ({ start, i, g })),
  );
  const results = new Array<RolloutEpisode>(jobs.length);
  const root = new Rng(options.seed);
  let next = 0;
  const worker = async () => {
    const env = options.makeEnv();
    try {
      for (let j = next++; j < jobs.length; j = next++) {
        const { start, i, g } = jobs[j] as (typeof jobs)[number];
        const episode = await rolloutEpisode(
          env,
          options,
          start,
          root.fork('rollout', i, g).uint32(),
        );
        // The id names the episode's place, so the same seed gives the same ids (reproducible exports).
        episode.trajectory.id = `${episode.groupId}#${g}@${options.seed}`;
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
  start: Start,
  seed: number,
): Promise<RolloutEpisode> {
  const logProbs: number[] = [];
  const values: number[] = [];
  const { trajectory, prefix } = await playEpisode(env, options.policy, {
    ...(start.branch
      ? { from: start.branch.from, horizon: start.branch.horizon }
      : { task: start.task }),
    seed,
    provenance: options.provenance,
    onDecision: (decision) => {
      logProbs.push(decision.logProb ?? 0);
      values.push(decision.value ?? 0);
    },
  });
  const task = trajectory.task;
  // A branched episode's decisions were made after the recorded steps before the branch.
  const history = prefix.map((s) => s.action);
  const replies = [...prefix, ...trajectory.steps].map((s) => s.observation);
  const steps = trajectory.steps.map((step, t) => {
    const recorded: RolloutStep = {
      observation: t === 0 ? trajectory.initial : (trajectory.steps[t - 1] as Step).observation,
      history: [...history],
      observations: replies.slice(0, prefix.length + t),
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
          .act(last.observation, { task, history: [...prefix, ...trajectory.steps], rng })
          .catch(() => undefined)
      )?.value ?? 0;
  }
  if (!start.branch) return { trajectory, groupId: task.id, steps, bootstrapValue };
  const { from } = start.branch;
  return { trajectory, groupId: branchGroupId(from), branch: from, steps, bootstrapValue };
}
