import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { tf } from '../core/tf.ts';
import { finalReward, isJudged, isSuccess, type Provenance, type Task } from '../core/types.ts';
import type { TaskSchedule } from '../curriculum/schedule.ts';
import type { BranchPoint, Env } from '../envs/env.ts';
import type { TrainablePolicy } from '../policy/policy.ts';

export type { TaskSchedule } from '../curriculum/schedule.ts';

import {
  type AdvantageEstimatorName,
  advantageEstimator,
  type EpisodeRewards,
  explainedVariance,
} from './advantages.ts';
import {
  completeCheckpoint,
  keepMetricsBefore,
  readCheckpointState,
  restoreOptimizer,
  saveCheckpoint,
} from './checkpoint.ts';
import { frozenReference, policyReference, type ReferencePolicy } from './reference.ts';
import { type Branch, type RolloutEpisode, rollout } from './rollout.ts';
import { type Optimizer, type PolicySample, ppoUpdate, type UpdateMetrics } from './update.ts';
import { snapshotWeights } from './weights.ts';

/** A policy the trainer can switch between sampling (training) and greedy (evaluation). */
export interface TrainerPolicy extends TrainablePolicy {
  temperature: number;
}

/** The trainer's algorithm and hyper-parameters. */
export interface TrainerConfig {
  /** `grpo`: group-relative outcome advantages, no critic. `ppo`: GAE with the value head. */
  algo: 'grpo' | 'ppo';
  /**
   * The advantage estimator by its name in `ADVANTAGE_ESTIMATORS`. Default: `grpo` for GRPO,
   * `gae` for PPO.
   */
  advantages?: AdvantageEstimatorName;
  iterations: number;
  /** Distinct tasks per iteration. */
  tasksPerIteration: number;
  /** Rollouts per task (GRPO's G; PPO uses it too, as more episodes per task). */
  groupSize: number;
  epochs: number;
  minibatchSize: number;
  learningRate: number;
  clip: number;
  /** Value-loss weight (PPO); GRPO trains no critic and ignores it. */
  valueCoef: number;
  entropyCoef: number;
  /**
   * GRPO only: leave out of the update every group whose judged episodes all scored the same
   * (DAPO's dynamic-sampling filter, Yu et al., 2025). Their advantages are 0, so their decisions
   * would move the policy through the entropy bonus alone, flattening a cloned policy wherever the
   * tasks are all solved or all failed. Unlike DAPO the batch is not refilled: the episode budget
   * stays as set. Default true.
   */
  dropUninformativeGroups: boolean;
  /**
   * Weight β of GRPO's KL penalty towards the reference policy (`TrainerIO.reference`, or the
   * policy as training starts): keeps a policy started from BC near it where the rewards give
   * little to learn from. Default 0, no penalty (DeepSeekMath's GRPO used 0.04).
   */
  klCoef: number;
  gamma: number;
  lambda: number;
  /** Evaluate every this many iterations (and after the last). 0 never. */
  evalEvery: number;
  /** Held-out tasks per evaluation (one episode each). */
  evalEpisodes: number;
  /** Sampling temperature of evaluation episodes; 0 is greedy. */
  evalTemperature: number;
  /**
   * Evaluate the starting policy too, and end with the weights of the best evaluation (the
   * highest success rate, then mean reward; a tie keeps the earlier): training then never hands
   * back a policy its evaluations found worse than the one it started from. Needs `evalEvery`
   * and an eval env. Evaluated in a synthetic env on tasks held out of training, it is model-based
   * selection, with no real step. The checkpoint keeps the last iteration's weights. Default false.
   */
  keepBest: boolean;
  /** Episodes in flight at once. */
  concurrency: number;
  seed: number;
  /**
   * Stop once this many env steps are used (a real-interaction budget). Never exceeded: an
   * iteration only starts the episodes that fit, counting each as `maxEpisodeSteps` long.
   */
  maxEnvSteps?: number;
  /** The env's step limit, for budgeting. Default 15 (webshop). */
  maxEpisodeSteps: number;
  /**
   * Branched rollouts (MBPO's answer to compounding model error): each iteration, this share of
   * the groups start from recorded real states (`TrainerIO.branchPoints`) rather than from tasks,
   * a group being `groupSize` continuations of one branch state, each cut off `horizon` steps
   * past it (or at the episode's step limit, counting the recorded steps). A continuation cut off
   * there has no outcome: GRPO leaves it out, PPO bootstraps it from its critic. Default: share 0,
   * every group from a task.
   */
  branching: BranchingConfig;
}

/** How many groups branch from real states, and how far they run. */
export interface BranchingConfig {
  /** Share of each iteration's groups that start from real states, in [0, 1]. */
  share: number;
  /** Steps a continuation may take past its branch state. */
  horizon: number;
}

/** The trainer's defaults: GRPO, 20 iterations. */
export const DEFAULT_TRAINER_CONFIG: TrainerConfig = {
  algo: 'grpo',
  iterations: 20,
  tasksPerIteration: 16,
  groupSize: 8,
  epochs: 4,
  minibatchSize: 64,
  learningRate: 1e-3,
  clip: 0.2,
  valueCoef: 0.5,
  entropyCoef: 0.01,
  dropUninformativeGroups: true,
  klCoef: 0,
  gamma: 1,
  lambda: 0.95,
  evalEvery: 5,
  evalEpisodes: 100,
  evalTemperature: 0,
  keepBest: false,
  concurrency: 1,
  seed: 0,
  maxEpisodeSteps: 15,
  branching: { share: 0, horizon: 5 },
};

/** Success rate, mean reward and mean steps of an evaluation. */
export interface EvalMetrics {
  episodes: number;
  successRate: number;
  meanReward: number;
  meanSteps: number;
}

/**
 * One training iteration's rollout, update and evaluation figures, as metrics.jsonl records them.
 */
export interface IterationMetrics {
  iteration: number;
  /** Seconds per stage. */
  seconds: { collect: number; advantages: number; update: number; evaluate: number };
  rollout: {
    episodes: number;
    steps: number;
    successRate: number;
    meanReward: number;
    /** Share of groups whose judged episodes' rewards differ (the ones GRPO learns from). */
    informativeGroups: number;
    /** Episodes left out of the update: their synthetic ending was unjudged (`info.unjudged`). */
    unjudged: number;
    /** Judged episodes left out of a GRPO update: their group's rewards were all equal. */
    uninformative: number;
    /** Episodes that started from a real state (`branching`). */
    branched: number;
    /** Branched episodes cut off at their horizon (left out of a GRPO update). */
    horizonCut: number;
  };
  update: UpdateMetrics & { explainedVariance: number };
  /** Interactions with the training env so far (real or synthetic, whichever it is). */
  envSteps: number;
  eval?: EvalMetrics;
  /**
   * With `keepBest`, on the last iteration: the iteration whose weights the policy ends with
   * (−1: the weights it started from) and its evaluation.
   */
  kept?: { iteration: number; eval: EvalMetrics };
}

/** What the trainer trains, where, on which tasks, and where it writes. */
export interface TrainerIO {
  policy: TrainerPolicy;
  /** The env to train in: the real env, or DreamGym's synthetic one. */
  makeEnv: () => Env;
  trainTasks: readonly Task[];
  /** The env to evaluate in (held-out tasks, usually the real env). */
  makeEvalEnv?: () => Env;
  evalTasks?: readonly Task[];
  /** Run folder: metrics.jsonl and checkpoint/ go here. */
  outDir?: string;
  /** Continue from `outDir/checkpoint` (the policy must already hold its weights). */
  resume?: boolean;
  /**
   * Called after each iteration with its metrics, and awaited before the next one starts (where
   * a synthetic env's experience model learns what its buffer gained).
   */
  onIteration?: (metrics: IterationMetrics) => void | Promise<void>;
  /** Picks each iteration's tasks (a curriculum); default: a seeded uniform sample of trainTasks. */
  schedule?: TaskSchedule;
  /** Recorded on the rollouts: `synthetic` when training in a synthetic env. Default `real-online`. */
  provenance?: Provenance;
  /**
   * Where `branching` starts its groups: `n` states of recorded real episodes of the training
   * env, chosen with `rng` (and, for picks that ask it, the policy). Needed when
   * `branching.share` > 0; the training env must honour `reset({ from })` (a synthetic env).
   */
  branchPoints?: (n: number, rng: Rng) => Promise<BranchPoint[]>;
  /**
   * π_ref for `klCoef`, never trained here. Default: the policy's weights as `train` starts; a
   * resumed run with `klCoef` must pass it (the resumed weights are not where the run started).
   */
  reference?: TrainablePolicy;
}

/**
 * The training loop in four named, timed stages per iteration: collect (grouped rollouts with the
 * sampling policy) → advantages (GRPO or GAE) → update (clipped policy-gradient epochs) →
 * evaluate (greedy, on held-out tasks). Metrics go to `metrics.jsonl`, one line per iteration;
 * a checkpoint is written atomically after every iteration, and `resume` continues after it.
 */
export async function train(
  io: TrainerIO,
  overrides: Partial<TrainerConfig> = {},
): Promise<IterationMetrics[]> {
  const config = { ...DEFAULT_TRAINER_CONFIG, ...overrides };
  validate(config);
  const optimizer = tf.train.adam(config.learningRate);
  const checkpoint = io.outDir ? join(io.outDir, 'checkpoint') : undefined;
  let start = 0;
  let envSteps = 0;
  const complete = io.resume && checkpoint ? completeCheckpoint(checkpoint) : undefined;
  if (complete) {
    const state = await readCheckpointState<{ iteration: number; envSteps: number }>(complete);
    if (state) {
      await restoreOptimizer(complete, optimizer);
      start = state.iteration + 1;
      envSteps = state.envSteps;
      // A kill between a metrics line and its checkpoint left that iteration's line: drop it.
      if (io.outDir) await keepMetricsBefore(join(io.outDir, 'metrics.jsonl'), start);
    }
  }
  if (io.outDir) await mkdir(io.outDir, { recursive: true });
  if (config.branching.share > 0 && !io.branchPoints) {
    optimizer.dispose();
    throw new ConfigError(
      'branching.share > 0 starts groups from real states: give the trainer branchPoints (the pipeline draws them from the replay buffer) and a training env that can reset from them (a synthetic env).',
    );
  }
  if (config.keepBest && !(io.makeEvalEnv && io.evalTasks?.length)) {
    optimizer.dispose();
    throw new ConfigError(
      'keepBest picks among evaluations: give the trainer makeEvalEnv and evalTasks (a synthetic env on tasks held out of training needs no real step).',
    );
  }
  if (start > 0 && config.klCoef > 0 && !io.reference) {
    optimizer.dispose();
    throw new ConfigError(
      'resuming with klCoef > 0 needs the reference policy the run started from (TrainerIO.reference): the resumed weights are not it.',
    );
  }
  const reference =
    config.klCoef > 0
      ? io.reference
        ? policyReference(io.reference)
        : frozenReference(io.policy)
      : undefined;
  try {
    return await iterate(io, config, optimizer, { start, envSteps, checkpoint, reference });
  } finally {
    reference?.dispose();
    optimizer.dispose();
  }
}

/** `train`'s iterations from `start` on. */
async function iterate(
  io: TrainerIO,
  config: TrainerConfig,
  optimizer: Optimizer,
  state: { start: number; envSteps: number; checkpoint?: string; reference?: ReferencePolicy },
): Promise<IterationMetrics[]> {
  const { start, checkpoint, reference } = state;
  let { envSteps } = state;
  const history: IterationMetrics[] = [];
  const evaluateNow = () =>
    evaluate(
      io.policy,
      io.makeEvalEnv as () => Env,
      (io.evalTasks as Task[]).slice(0, config.evalEpisodes),
      config,
    );
  // keepBest: the best evaluated weights so far, the starting ones first.
  let best = config.keepBest
    ? { iteration: start - 1, eval: await evaluateNow(), weights: snapshotWeights(io.policy) }
    : undefined;
  try {
    for (let iteration = start; iteration < config.iterations; iteration++) {
      const seconds = { collect: 0, advantages: 0, update: 0, evaluate: 0 };
      const rng = new Rng(config.seed).fork('iteration', iteration);
      const affordable =
        config.maxEnvSteps === undefined
          ? config.tasksPerIteration
          : Math.min(
              config.tasksPerIteration,
              Math.floor(
                (config.maxEnvSteps - envSteps) / (config.maxEpisodeSteps * config.groupSize),
              ),
            );
      if (affordable < 1) break;
      const branching = Math.round(affordable * config.branching.share);
      const fromTasks = affordable - branching;
      const tasks =
        fromTasks === 0
          ? []
          : io.schedule
            ? await io.schedule.next(iteration, fromTasks)
            : rng.sample(io.trainTasks, fromTasks);
      const branches =
        branching > 0 ? await branchesFor(io, config, branching, rng.fork('branches')) : [];

      const episodes = await timed(seconds, 'collect', () =>
        rollout({
          makeEnv: io.makeEnv,
          policy: io.policy,
          tasks,
          branches,
          groupSize: config.groupSize,
          concurrency: config.concurrency,
          seed: rng.uint32(),
          provenance: io.provenance ?? 'real-online',
        }),
      );
      envSteps += episodes.reduce((s, e) => s + e.steps.length, 0);
      // Endings the synthetic env could not judge teach nothing: no advantage, no task variance;
      // nor, to GRPO, do continuations cut off at their horizon, which have no outcome.
      const judged = episodes.filter(
        (e) => isJudged(e.trajectory) && !(grpoLike(config) && cutAtHorizon(e)),
      );
      await io.schedule?.record?.(
        judged
          .filter((e) => !e.branch)
          .map((e) => ({ taskId: e.groupId, reward: finalReward(e.trajectory) })),
      );

      const learnt =
        grpoLike(config) && config.dropUninformativeGroups ? informative(judged) : judged;
      const samples = await timed(seconds, 'advantages', async () =>
        withReference(toSamples(learnt, config), reference),
      );

      const update = await timed(seconds, 'update', async () =>
        ppoUpdate(io.policy, optimizer, samples, {
          epochs: config.epochs,
          minibatchSize: config.minibatchSize,
          clip: config.clip,
          valueCoef: config.algo === 'ppo' ? config.valueCoef : 0,
          entropyCoef: config.entropyCoef,
          klCoef: reference ? config.klCoef : 0,
          normalizeAdvantages: config.algo === 'ppo',
          seed: rng.uint32(),
        }),
      );

      const last =
        iteration === config.iterations - 1 ||
        (config.maxEnvSteps !== undefined &&
          config.maxEnvSteps - envSteps < config.maxEpisodeSteps * config.groupSize);
      const due = config.evalEvery > 0 && ((iteration + 1) % config.evalEvery === 0 || last);
      const evalMetrics =
        due && io.makeEvalEnv && io.evalTasks
          ? await timed(seconds, 'evaluate', evaluateNow)
          : undefined;
      if (best && evalMetrics && better(evalMetrics, best.eval)) {
        best.weights.dispose();
        best = { iteration, eval: evalMetrics, weights: snapshotWeights(io.policy) };
      }

      const metrics: IterationMetrics = {
        iteration,
        seconds,
        rollout: { ...rolloutStats(episodes), uninformative: judged.length - learnt.length },
        update: {
          ...update,
          explainedVariance: explainedVariance(
            samples.map((s) => s.value),
            samples.map((s) => s.return),
          ),
        },
        envSteps,
        ...(evalMetrics && { eval: evalMetrics }),
        ...(best && last && { kept: { iteration: best.iteration, eval: best.eval } }),
      };
      history.push(metrics);
      if (io.outDir && checkpoint) {
        await appendFile(join(io.outDir, 'metrics.jsonl'), `${JSON.stringify(metrics)}\n`);
        await saveCheckpoint(checkpoint, io.policy, optimizer, { iteration, envSteps, config });
      }
      await io.onIteration?.(metrics);
    }
    best?.weights.restore();
    return history;
  } finally {
    best?.weights.dispose();
  }
}

/**
 * The iteration's branch states, each with the steps its continuations may take: the horizon,
 * or what the step limit leaves after the recorded steps if fewer (at least one).
 */
async function branchesFor(
  io: TrainerIO,
  config: TrainerConfig,
  n: number,
  rng: Rng,
): Promise<Branch[]> {
  const points = await (io.branchPoints as NonNullable<TrainerIO['branchPoints']>)(n, rng);
  return points.map((from) => ({
    from,
    horizon: Math.max(1, Math.min(config.branching.horizon, config.maxEpisodeSteps - from.step)),
  }));
}

/** Whether a branched continuation was cut off at its horizon. */
function cutAtHorizon(episode: RolloutEpisode): boolean {
  return episode.trajectory.steps.at(-1)?.info?.truncatedBy === 'horizon';
}

/** A higher success rate, or the same with a higher mean reward. */
function better(a: EvalMetrics, b: EvalMetrics): boolean {
  return (
    a.successRate > b.successRate ||
    (a.successRate === b.successRate && a.meanReward > b.meanReward)
  );
}

/** The samples with their log-probabilities under the reference, where there is one. */
function withReference(samples: PolicySample[], reference?: ReferencePolicy): PolicySample[] {
  if (!reference || samples.length === 0) return samples;
  const logProbs = reference.logProbs(samples);
  return samples.map((s, i) => ({ ...s, refLogProb: logProbs[i] as number }));
}

/**
 * Episodes on held-out tasks, greedy unless `evalTemperature` says otherwise: success rate, mean
 * final reward, steps.
 */
export async function evaluate(
  policy: TrainerPolicy,
  makeEnv: () => Env,
  tasks: readonly Task[],
  {
    seed = 0,
    concurrency = 1,
    evalTemperature = 0,
  }: { seed?: number; concurrency?: number; evalTemperature?: number } = {},
): Promise<EvalMetrics> {
  const temperature = policy.temperature;
  policy.temperature = evalTemperature;
  try {
    const episodes = await rollout({
      makeEnv,
      policy,
      tasks,
      seed,
      concurrency,
      provenance: 'real-online',
    });
    const n = episodes.length;
    return {
      episodes: n,
      successRate: episodes.filter((e) => isSuccess(e.trajectory)).length / n,
      meanReward: episodes.reduce((s, e) => s + finalReward(e.trajectory), 0) / n,
      meanSteps: episodes.reduce((s, e) => s + e.steps.length, 0) / n,
    };
  } finally {
    policy.temperature = temperature;
  }
}

/** Advantages and returns for every recorded decision, by the configured estimator. */
function toSamples(episodes: readonly RolloutEpisode[], config: TrainerConfig): PolicySample[] {
  const inputs: EpisodeRewards[] = episodes.map((e) => {
    const last = e.steps.at(-1);
    return {
      groupId: e.groupId,
      rewards: e.steps.map((s) => s.reward),
      values: e.steps.map((s) => s.value),
      terminated: last?.terminated ?? true,
      truncated: last?.truncated ?? false,
      bootstrapValue: e.bootstrapValue,
    };
  });
  const estimator = advantageEstimator(estimatorName(config));
  const { advantages, returns } = estimator(inputs, { gamma: config.gamma, lambda: config.lambda });
  return episodes.flatMap((e, i) =>
    e.steps.map((s, t) => ({
      observation: s.observation,
      history: s.history,
      // The replies too: the update must see the episode memory the policy acted on.
      ...(s.observations && { observations: s.observations }),
      action: s.action,
      logProb: s.logProb,
      value: s.value,
      advantage: advantages[i]?.[t] as number,
      return: returns[i]?.[t] as number,
    })),
  );
}

function estimatorName(config: TrainerConfig): AdvantageEstimatorName {
  return config.advantages ?? (config.algo === 'grpo' ? 'grpo' : 'gae');
}

/** Whether advantages are group-relative outcomes, so an all-equal group's are all 0. */
function grpoLike(config: TrainerConfig): boolean {
  return estimatorName(config) === 'grpo';
}

/** Each group's final rewards, by group id. */
function groupRewards(episodes: readonly RolloutEpisode[]): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const e of episodes)
    groups.set(e.groupId, [...(groups.get(e.groupId) ?? []), finalReward(e.trajectory)]);
  return groups;
}

const differ = (rs: readonly number[]) => rs.some((r) => r !== rs[0]);

/** The episodes of groups whose rewards differ: the ones GRPO's advantages are not 0 for. */
function informative(episodes: readonly RolloutEpisode[]): RolloutEpisode[] {
  const groups = groupRewards(episodes);
  return episodes.filter((e) => differ(groups.get(e.groupId) ?? []));
}

function rolloutStats(
  episodes: readonly RolloutEpisode[],
): Omit<IterationMetrics['rollout'], 'uninformative'> {
  const groups = groupRewards(episodes.filter((e) => isJudged(e.trajectory)));
  const informative = [...groups.values()].filter(differ).length;
  return {
    episodes: episodes.length,
    steps: episodes.reduce((s, e) => s + e.steps.length, 0),
    successRate: episodes.filter((e) => isSuccess(e.trajectory)).length / episodes.length,
    meanReward: episodes.reduce((s, e) => s + finalReward(e.trajectory), 0) / episodes.length,
    informativeGroups: groups.size ? informative / groups.size : 0,
    unjudged: episodes.filter((e) => !isJudged(e.trajectory)).length,
    branched: episodes.filter((e) => e.branch).length,
    horizonCut: episodes.filter(cutAtHorizon).length,
  };
}

async function timed<T>(
  seconds: Record<string, number>,
  stage: string,
  fn: () => Promise<T>,
): Promise<T> {
  const start = performance.now();
  try {
    return await fn();
  } finally {
    seconds[stage] = (performance.now() - start) / 1000;
  }
}

function validate(config: TrainerConfig): void {
  if (config.algo !== 'grpo' && config.algo !== 'ppo') {
    throw new ConfigError(`unknown algorithm "${config.algo}"; available: grpo, ppo.`);
  }
  for (const key of [
    'iterations',
    'tasksPerIteration',
    'groupSize',
    'epochs',
    'minibatchSize',
    'concurrency',
  ] as const) {
    if (!Number.isInteger(config[key]) || config[key] < 1) {
      throw new ConfigError(
        `trainer config ${key} must be a positive integer, got ${config[key]}.`,
      );
    }
  }
  const { share, horizon } = config.branching;
  if (!(share >= 0 && share <= 1)) {
    throw new ConfigError(`trainer config branching.share must be in [0, 1], got ${share}.`);
  }
  if (!Number.isInteger(horizon) || horizon < 1) {
    throw new ConfigError(
      `trainer config branching.horizon must be a positive integer, got ${horizon}.`,
    );
  }
  if (!Number.isFinite(config.klCoef) || config.klCoef < 0) {
    throw new ConfigError(`trainer config klCoef must be 0 or more, got ${config.klCoef}.`);
  }
  if (config.keepBest && config.evalEvery < 1) {
    throw new ConfigError(
      'keepBest picks among evaluations: set evalEvery to 1 or more (and give makeEvalEnv and evalTasks).',
    );
  }
  if (config.algo === 'grpo' && config.groupSize < 2) {
    throw new ConfigError('GRPO compares rollouts of the same task: set groupSize to 2 or more.');
  }
}
