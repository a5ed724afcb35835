import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { tf } from '../core/tf.ts';
import { finalReward, type Step, type Trajectory } from '../core/types.ts';
import type { RecordedDecision, TrainablePolicy } from '../policy/policy.ts';
import { trainWithEarlyStopping } from './early-stopping.ts';
import { type BcMetrics, bcEpoch, bcUpdate } from './update.ts';

/**
 * Which episodes behaviour cloning learns from (by reward), how it chooses when to stop (a
 * validation split, or a fixed number of epochs), its minibatch size, learning rate and seed.
 */
export interface BehaviourCloningOptions {
  /** Keep trajectories whose final reward is at least this (1 = successes only). Default 1. */
  minReward?: number;
  /**
   * Share of the kept trajectories held out as a validation split. Behaviour cloning then keeps
   * the weights of the epoch that fits the held-out decisions best (lowest negative
   * log-likelihood) and stops `patience` epochs after it without a better one. 0 trains exactly
   * `epochs` epochs on every kept trajectory and keeps the last weights (the fixed-epoch
   * behaviour). Default 0.2.
   */
  validationShare?: number;
  /** With a validation split, the most epochs (default 200); without, the epochs (default 8). */
  epochs?: number;
  /** Epochs without a better validation score before stopping. Default 10. */
  patience?: number;
  minibatchSize?: number;
  learningRate?: number;
  seed?: number;
}

/** One epoch of behaviour cloning with a validation split. */
export interface BcEpochScore {
  /** 1-based. */
  epoch: number;
  /** Mean negative log-likelihood of the training minibatches during the epoch. */
  trainNll: number;
  /** Mean negative log-likelihood of the held-out decisions after the epoch. */
  nll: number;
  /** Share of held-out decisions whose demonstrated action gets more than half the probability. */
  confident: number;
}

/** What behaviour cloning trained on, for how long, and how well the validation split was fit. */
export interface BehaviourCloningResult extends BcMetrics {
  /** Kept trajectories trained on (without the validation split). */
  trajectories: number;
  /** Decisions trained on. */
  decisions: number;
  /** Epochs trained. */
  epochs: number;
  /** With a validation split: its size, the epoch whose weights were kept, and every epoch's scores. */
  validation?: {
    trajectories: number;
    decisions: number;
    bestEpoch: number;
    nll: number;
    curve: BcEpochScore[];
  };
  /** Recoverable problems (too few trajectories to hold any out). */
  warnings: string[];
}

/** The decisions of trajectories, as (state, history and its replies, action) records. */
export function decisionsOf(trajectories: readonly Trajectory[]): RecordedDecision[] {
  return trajectories.flatMap((t) =>
    t.steps.map((step, i) => ({
      observation: i === 0 ? t.initial : (t.steps[i - 1] as Step).observation,
      history: t.steps.slice(0, i).map((s) => s.action),
      observations: t.steps.slice(0, i).map((s) => s.observation),
      action: step.action,
    })),
  );
}

/**
 * Behaviour cloning (the paper's SFT baseline): maximum likelihood of the demonstrated actions
 * of the offline trajectories that reached `minReward`, trained until a held-out share of them
 * stops getting better fit (see {@link BehaviourCloningOptions.validationShare}).
 */
export function behaviourCloning(
  policy: TrainablePolicy,
  trajectories: readonly Trajectory[],
  {
    minReward = 1,
    validationShare = 0.2,
    epochs,
    patience = 10,
    minibatchSize = 64,
    learningRate = 1e-3,
    seed = 0,
  }: BehaviourCloningOptions = {},
): BehaviourCloningResult {
  const kept = trajectories.filter((t) => finalReward(t) >= minReward);
  if (kept.length === 0) {
    throw new Error(
      `behaviour cloning: no trajectory reaches reward ${minReward}; lower minReward or collect better data.`,
    );
  }
  if (!(validationShare >= 0 && validationShare < 1)) {
    throw new ConfigError(
      `behaviour cloning: validationShare must be in [0, 1), got ${validationShare}; 0 trains a fixed number of epochs.`,
    );
  }
  const warnings: string[] = [];
  let held = validationShare > 0 ? Math.round(validationShare * kept.length) : 0;
  if (validationShare > 0) held = Math.min(kept.length - 1, Math.max(1, held));
  if (validationShare > 0 && held === 0) {
    warnings.push(
      `only ${kept.length} trajectory reaches reward ${minReward}: none left to hold out, so it trained a fixed ${epochs ?? 8} epochs.`,
    );
  }
  const optimizer = tf.train.adam(learningRate);
  try {
    if (held === 0) {
      const decisions = decisionsOf(kept);
      const fixed = epochs ?? 8;
      return {
        ...bcUpdate(policy, optimizer, decisions, { epochs: fixed, minibatchSize, seed }),
        trajectories: kept.length,
        decisions: decisions.length,
        epochs: fixed,
        warnings,
      };
    }
    const shuffled = new Rng(seed).fork('bc-validation').shuffle([...kept]);
    const train = decisionsOf(shuffled.slice(held));
    const validation = decisionsOf(shuffled.slice(0, held));
    const fit = fitWithValidation(policy, optimizer, train, validation, {
      maxEpochs: epochs ?? 200,
      patience,
      minibatchSize,
      seed,
    });
    return {
      ...fit.metrics,
      trajectories: kept.length - held,
      decisions: train.length,
      epochs: fit.curve.length,
      validation: {
        trajectories: held,
        decisions: validation.length,
        bestEpoch: fit.best.epoch,
        nll: fit.best.nll,
        curve: fit.curve,
      },
      warnings,
    };
  } finally {
    optimizer.dispose();
  }
}

/**
 * Behaviour cloning's early stopping: epochs over `train` (minibatches shuffled from `seed`)
 * until `patience` epochs pass without a lower negative log-likelihood of `validation`, or
 * `maxEpochs`; the policy ends with the best epoch's weights. Returns the last epoch's training
 * metrics, the best epoch and every epoch's scores.
 */
export function fitWithValidation(
  policy: TrainablePolicy,
  optimizer: ReturnType<typeof tf.train.adam>,
  train: readonly RecordedDecision[],
  validation: readonly RecordedDecision[],
  options: { maxEpochs: number; patience: number; minibatchSize: number; seed: number },
): { metrics: BcMetrics; best: BcEpochScore; curve: BcEpochScore[] } {
  const rng = new Rng(options.seed).fork('bc-minibatches');
  let minibatches = 0;
  let last: BcMetrics = { nll: 0, minibatches: 0 };
  const { best, curve } = trainWithEarlyStopping(
    policy.variables,
    options,
    (epoch): BcEpochScore => {
      last = bcEpoch(policy, optimizer, train, rng, { minibatchSize: options.minibatchSize });
      minibatches += last.minibatches;
      return { epoch, trainNll: last.nll, ...heldOutFit(policy, validation) };
    },
    (score) => score.nll,
  );
  return { metrics: { nll: last.nll, minibatches }, best, curve };
}

/** Mean negative log-likelihood of `decisions`' actions, and the share held with p > 1/2. */
function heldOutFit(
  policy: TrainablePolicy,
  decisions: readonly RecordedDecision[],
): { nll: number; confident: number } {
  let nll = 0;
  let confident = 0;
  for (let start = 0; start < decisions.length; start += 64) {
    const batch = decisions.slice(start, start + 64);
    const logProbs = tf.tidy(() => policy.evaluate(batch).logProbs.dataSync());
    for (const logProb of logProbs) {
      nll -= logProb;
      if (logProb > Math.log(0.5)) confident++;
    }
  }
  return { nll: nll / decisions.length, confident: confident / decisions.length };
}
