import { initTf } from '../core/tf.ts';
import type { TaskSchedule } from '../curriculum/schedule.ts';
import { type ExperienceChoice, llmFreeModel } from '../experience/llm-free.ts';
import { ChoicePolicy } from '../policy/choice/choice-policy.ts';
import { makePolicy } from '../policy/registry.ts';
import { ReplayBuffer } from '../replay/open-buffer.ts';
import { TransitionEncoder } from '../replay/transition-encoder.ts';
import { acrossSeeds, type Estimate } from '../report/stats.ts';
import { collect } from '../rl/collect.ts';
import { type TrainerConfig, train } from '../rl/trainer.ts';
import {
  type EnvSetup,
  envSetup,
  evaluateReal,
  offlineData,
  syntheticFactory,
} from './experiment.ts';
import { teacherForced } from './fidelity.ts';

/** What `runScaling` varies and how long each run trains. */
export interface ScalingOptions {
  env: string;
  /** Offline real episodes per point, e.g. [50, 100, 250, 500, 1000]. */
  sizes: readonly number[];
  /** First seed; every size runs on `seeds` seeds. */
  seed: number;
  seeds: number;
  /** The offline expert's mistake rate. */
  epsilon: number;
  /** GRPO iterations in the synthetic env. */
  syntheticIterations: number;
  /** Which LLM-free experience model (see `llmFreeModel`); default `auto`. */
  experience?: ExperienceChoice;
  trainer: Partial<TrainerConfig>;
  /** Held-out test tasks of the real-env evaluation. */
  evalEpisodes: number;
  /** Held-out real episodes (on tasks no offline set contains) for teacher-forced fidelity. */
  fidelityEpisodes: number;
  /** The curriculum of synthetic training, made per run, as the demo's. */
  curriculum?: (setup: EnvSetup, seed: number) => TaskSchedule;
  onProgress?: (line: string) => void;
}

/** One size on one seed. */
export interface ScalingRun {
  seed: number;
  /** Held-out real success with its Wilson interval over test tasks. */
  success: Estimate;
  meanReward: number;
  /** Teacher-forced next-state exact match and reward MAE on the held-out real episodes. */
  exactMatch: number;
  rewardMae: number;
  offlineTransitions: number;
  syntheticInteractions: number;
  seconds: number;
}

/** One amount of offline data over its seeds. */
export interface ScalingPoint {
  offlineEpisodes: number;
  /** Mean over seeds with a Student-t interval across seeds (one seed: its Wilson interval). */
  success: Estimate;
  /** Mean over seeds of the teacher-forced exact match, with a Student-t interval across seeds. */
  exactMatch: Estimate;
  rewardMae: number;
  runs: ScalingRun[];
}

/** Everything `dreamgym scaling` measured. */
export interface ScalingResult {
  env: string;
  points: ScalingPoint[];
  options: Omit<ScalingOptions, 'onProgress' | 'curriculum'>;
}

/**
 * DreamGym's data scaling: for each amount of offline real data, a buffer of that many noisy
 * expert episodes, the LLM-free model learnt from it, GRPO trained only in its synthetic env,
 * then held-out success in the real env, and the model's teacher-forced fidelity on held-out real
 * episodes (the same ones for every size).
 */
export async function runScaling(options: ScalingOptions): Promise<ScalingResult> {
  await initTf();
  const log = options.onProgress ?? (() => {});
  const largest = Math.max(...options.sizes);
  const setup = envSetup(options.env, {
    trainTasks: largest + options.fidelityEpisodes,
    testTasks: options.evalEpisodes,
  });
  const real = setup.makeReal();
  const heldOut = await collect({
    env: real,
    policy: makePolicy('expert', { env: options.env, epsilon: options.epsilon }),
    tasks: setup.trainTasks.slice(largest, largest + options.fidelityEpisodes),
    episodes: options.fidelityEpisodes,
    seed: 9,
    provenance: 'real-online',
  });
  await real.close();
  const seeds = Array.from({ length: options.seeds }, (_, i) => options.seed + i);
  const points: ScalingPoint[] = [];
  for (const size of options.sizes) {
    const runs: ScalingRun[] = [];
    for (const seed of seeds) {
      const started = performance.now();
      const offline = await offlineData(setup, { episodes: size, epsilon: options.epsilon, seed });
      const buffer = await ReplayBuffer.open({ encoder: new TransitionEncoder() });
      try {
        await buffer.add(offline);
        const model = await llmFreeModel(options.env, buffer, {
          experience: options.experience ?? 'auto',
        });
        const fidelity = await teacherForced({ model, buffer, trajectories: heldOut });
        const policy = new ChoicePolicy({ seed });
        const schedule = options.curriculum?.(setup, seed);
        const history = await train(
          {
            policy,
            makeEnv: syntheticFactory(setup, buffer, model),
            trainTasks: setup.trainTasks,
            provenance: 'synthetic',
            onIteration: (m) =>
              log(
                `${size} offline, seed ${seed}: iter ${m.iteration + 1} rollout success ${(100 * m.rollout.successRate).toFixed(1)}%`,
              ),
            ...(schedule && { schedule }),
          },
          {
            maxEpisodeSteps: setup.maxEpisodeSteps,
            ...options.trainer,
            algo: 'grpo',
            iterations: options.syntheticIterations,
            evalEvery: 0,
            seed,
          },
        );
        const evaluation = await evaluateReal(policy, setup, {
          episodes: options.evalEpisodes,
          seed: seed + 1,
        });
        policy.dispose();
        const run: ScalingRun = {
          seed,
          success: evaluation.success,
          meanReward: evaluation.reward.mean,
          exactMatch: fidelity.exactMatch,
          rewardMae: fidelity.rewardMae,
          offlineTransitions: offline.reduce((s, t) => s + t.steps.length, 0),
          syntheticInteractions: history.at(-1)?.envSteps ?? 0,
          seconds: (performance.now() - started) / 1000,
        };
        runs.push(run);
        log(
          `${size} offline, seed ${seed}: held-out success ${(100 * run.success.mean).toFixed(1)}%, exact match ${(100 * run.exactMatch).toFixed(1)}% (${run.seconds.toFixed(0)} s)`,
        );
      } finally {
        await buffer.close();
      }
    }
    const only = runs.length === 1 ? runs[0] : undefined;
    points.push({
      offlineEpisodes: size,
      success: only?.success ?? acrossSeeds(runs.map((r) => r.success.mean)),
      exactMatch: acrossSeeds(runs.map((r) => r.exactMatch)),
      rewardMae: runs.reduce((s, r) => s + r.rewardMae, 0) / runs.length,
      runs,
    });
  }
  const { onProgress: _, curriculum: __, ...recorded } = options;
  return { env: options.env, points, options: recorded };
}
