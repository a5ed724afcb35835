import { finalReward, isSuccess, type Task, type Trajectory } from '../core/types.ts';
import type { Env } from '../envs/env.ts';
import { envEntry } from '../envs/registry.ts';
import { RecordEpisodes } from '../envs/wrappers/record-episodes.ts';
import { TimeLimit } from '../envs/wrappers/time-limit.ts';
import { UncertaintyHalt } from '../envs/wrappers/uncertainty-halt.ts';
import { UncertaintyPenalty } from '../envs/wrappers/uncertainty-penalty.ts';
import type { ExperienceModel } from '../experience/experience-model.ts';
import { SyntheticEnv } from '../experience/synthetic-env.ts';
import type { Policy } from '../policy/policy.ts';
import { makePolicy } from '../policy/registry.ts';
import type { ReplayBuffer } from '../replay/replay-buffer.ts';
import { type Estimate, meanInterval, wilson } from '../report/stats.ts';
import { collect } from '../rl/collect.ts';
import { rollout } from '../rl/rollout.ts';
import type { TrainerPolicy } from '../rl/trainer.ts';

/** An env family with its real env, task splits and step limit. */
export interface EnvSetup {
  name: string;
  /** A fresh real env. */
  makeReal: () => Env;
  trainTasks: Task[];
  testTasks: Task[];
  maxEpisodeSteps: number;
}

/** An env's real env, its train and test tasks and its step limit (any name `envEntry` knows). */
export function envSetup(name: string, { trainTasks = 1000, testTasks = 200 } = {}): EnvSetup {
  const entry = envEntry(name);
  return {
    // A server ref's data carries the family its entry names (`mcp@CONFIG` → `mcp:NAME`).
    name: entry.name ?? name,
    makeReal: () => entry.make({}),
    trainTasks: entry.tasks({ split: 'train' }).tasks('train', trainTasks),
    testTasks: entry.tasks({ split: 'test' }).tasks('test', testTasks),
    maxEpisodeSteps: entry.maxSteps,
  };
}

/**
 * Offline real data as DreamGym starts from: the scripted expert with mistake rate ε (or the given
 * `policy`) on the first `episodes` train tasks (demonstrations a person might have recorded).
 */
export async function offlineData(
  setup: EnvSetup,
  {
    episodes,
    epsilon = 0,
    seed,
    policy,
  }: { episodes: number; epsilon?: number; seed: number; policy?: Policy },
): Promise<Trajectory[]> {
  const env = setup.makeReal();
  try {
    return await collect({
      env,
      policy: policy ?? makePolicy('expert', { env: setup.name, epsilon }),
      tasks: setup.trainTasks.slice(0, episodes),
      episodes,
      seed,
      provenance: 'real-offline',
    });
  } finally {
    await env.close();
  }
}

export interface SyntheticOptions {
  /** Demonstrations per step; 0 is the no-retrieval ablation. */
  k?: number;
  /** false is the no-history ablation. */
  history?: boolean;
  writeBack?: boolean;
  /** Share of the demonstrations that are real (see `SyntheticEnvOptions.realShare`). Default 1. */
  realShare?: number;
  /**
   * Pessimism on the model's `info.uncertainty`: `penalty` λ takes λ × the episode's summed
   * uncertainty from its final reward (MOPO, `UncertaintyPenalty`); `halt` τ ends an episode
   * unjudged at a step over τ (MOReL, `UncertaintyHalt`). Default: neither; on household (3
   * seeds) every λ and τ tried lowered held-out success (docs/guide/branching.md).
   */
  uncertainty?: { penalty?: number; halt?: number };
}

/** Makes synthetic envs over a model and a buffer, with the real env's step limit. */
export function syntheticFactory(
  setup: EnvSetup,
  buffer: ReplayBuffer,
  model: ExperienceModel,
  options: SyntheticOptions = {},
): () => Env {
  const tasks = { tasks: () => setup.trainTasks };
  const { penalty, halt } = options.uncertainty ?? {};
  return () => {
    const synthetic = new SyntheticEnv({
      env: setup.name,
      model,
      buffer,
      tasks,
      k: options.k ?? 4,
      history: options.history ?? true,
      ...(options.realShare !== undefined &&
        options.realShare < 1 && {
          realShare: options.realShare,
        }),
    });
    const limited = new TimeLimit(
      halt === undefined ? synthetic : new UncertaintyHalt(synthetic, halt),
      setup.maxEpisodeSteps,
    );
    // Outside the step limit, so episodes it cuts off are written back too.
    const recorded = options.writeBack
      ? new RecordEpisodes(limited, {
          provenance: 'synthetic',
          onEpisode: async (trajectory) => {
            await buffer.add([trajectory]);
          },
        })
      : limited;
    // Outside the record: the buffer keeps the model's own rewards, the trainer pays the penalty.
    return penalty ? new UncertaintyPenalty(recorded, penalty) : recorded;
  };
}

/** Held-out success and reward with 95% intervals, and mean episode length. */
export interface Evaluation {
  success: Estimate;
  reward: Estimate;
  meanSteps: number;
}

/**
 * Episodes of `policy` on the held-out test tasks in the real env, with 95% intervals: greedy by
 * default, or sampled at `temperature` (each episode seeded by its place, so still reproducible).
 */
export async function evaluateReal(
  policy: TrainerPolicy,
  setup: EnvSetup,
  options: { episodes: number; seed: number; temperature?: number },
): Promise<Evaluation> {
  return evaluateIn(setup.makeReal, policy, setup, options);
}

/**
 * {@link evaluateReal} in another env on the same held-out tasks: a synthetic one, to see whether
 * it ranks policies as the real env does (`rankAgreement`).
 */
export async function evaluateIn(
  makeEnv: () => Env,
  policy: TrainerPolicy,
  setup: EnvSetup,
  {
    episodes,
    seed,
    temperature = 0,
    tasks = setup.testTasks,
  }: {
    episodes: number;
    seed: number;
    temperature?: number;
    /** The tasks to play the first `episodes` of. Default: the held-out test tasks. */
    tasks?: readonly Task[];
  },
): Promise<Evaluation> {
  const previous = policy.temperature;
  policy.temperature = temperature;
  try {
    const results = await rollout({
      makeEnv,
      policy,
      tasks: tasks.slice(0, episodes),
      seed,
      provenance: makeEnv === setup.makeReal ? 'real-online' : 'synthetic',
    });
    const trajectories = results.map((r) => r.trajectory);
    return {
      success: wilson(trajectories.filter(isSuccess).length, trajectories.length),
      reward: meanInterval(trajectories.map(finalReward)),
      meanSteps:
        trajectories.reduce((s, t) => s + t.steps.length, 0) / Math.max(1, trajectories.length),
    };
  } finally {
    policy.temperature = previous;
  }
}
