import { ConfigError, DreamGymError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { type Tensor, type Tensor1D, tf } from '../core/tf.ts';
import type { RecordedDecision, TrainablePolicy } from '../policy/policy.ts';
import { trainWithEarlyStopping } from './early-stopping.ts';
import { type PreferencePair, pairDecisions } from './preference-pairs.ts';
import { gradientStep, type Optimizer } from './update.ts';

/** DPO found nothing to learn from. */
export class NoPreferencePairsError extends DreamGymError {}

/** Log-probabilities of a batch of pairs' chosen and rejected actions, under one policy. */
export interface PairLogProbs {
  chosen: Tensor1D;
  rejected: Tensor1D;
}

/** DPO's loss over a batch of pairs, and how well the policy separates them. */
export interface DpoLossOutput {
  /** Mean of −log σ(β · margin). */
  loss: Tensor;
  /** Mean of the margin (log πθ(w) − log πref(w)) − (log πθ(l) − log πref(l)). */
  margin: Tensor;
  /** Share of pairs whose margin is positive (the implicit reward prefers the chosen action). */
  accuracy: Tensor;
}

/**
 * Direct preference optimisation's loss (Rafailov et al., 2023): for each pair,
 * −log σ(β [(log πθ(w) − log πref(w)) − (log πθ(l) − log πref(l))]), averaged. −log σ(x) is
 * computed as softplus(−x), exact for large |x|.
 */
export function dpoLoss(
  policy: PairLogProbs,
  reference: PairLogProbs,
  beta: number,
): DpoLossOutput {
  return tf.tidy(() => {
    const margin = tf.sub(
      tf.sub(policy.chosen, reference.chosen),
      tf.sub(policy.rejected, reference.rejected),
    );
    return {
      loss: tf.mean(tf.softplus(tf.mul(margin, -beta))),
      margin: tf.mean(margin),
      accuracy: tf.mean(tf.cast(tf.greater(margin, 0), 'float32')),
    };
  });
}

/**
 * β for the choice policy. Its log-probability of a decision is one categorical choice's, a few
 * nats, where β = 0.1 is set for an LLM's sum over a reply's tokens: with 0.1 the loss still
 * pays for margins of tens of nats, and DPO pushes the policy far from its reference. Measured
 * on webshop (seed 0, 457 expert-labelled pairs, 100 held-out tasks, BC 64%): β 0.1 ended at 0%
 * (the held-out DPO loss kept falling while the greedy policy broke), 0.3 at 23%, 1 at 78%, 2 at
 * 79%.
 */
export const CHOICE_POLICY_DPO_BETA = 1;

/** DPO's β, its validation split and early stopping, minibatch size, learning rate and seed. */
export interface DpoOptions {
  /** β: how far the policy may move from the reference for a given preference. Default 0.1. */
  beta?: number;
  /**
   * Share of the pairs held out: training keeps the weights of the epoch with the lowest
   * held-out DPO loss and stops `patience` epochs after it, as behaviour cloning does. 0 trains
   * exactly `epochs` epochs on every pair. Default 0.2.
   */
  validationShare?: number;
  /** With a validation split, the most epochs (default 100); without, the epochs (default 8). */
  epochs?: number;
  /** Epochs without a lower held-out loss before stopping. Default 10. */
  patience?: number;
  /** Pairs per gradient step. Default 64. */
  minibatchSize?: number;
  /** Default 1e-3, as behaviour cloning's. */
  learningRate?: number;
  /** Clip the global gradient norm to this. Default 1. */
  maxGradNorm?: number;
  /** Splits and shuffles the pairs. Default 0. */
  seed?: number;
}

/** One epoch of DPO: the training loss, and the held-out pairs' loss, margin and accuracy. */
export interface DpoEpochScore {
  /** 1-based. */
  epoch: number;
  trainLoss: number;
  loss: number;
  margin: number;
  accuracy: number;
}

/** What DPO trained on and how well the held-out pairs are separated. */
export interface DpoResult {
  /** Pairs trained on (without the validation split). */
  pairs: number;
  epochs: number;
  /** Mean DPO loss of the last epoch's minibatches. */
  trainLoss: number;
  /** With a validation split: its size, the kept epoch and every epoch's scores. */
  validation?: { pairs: number; bestEpoch: number; best: DpoEpochScore; curve: DpoEpochScore[] };
  /** Recoverable problems (too few pairs to hold any out). */
  warnings: string[];
}

/**
 * DPO on preference pairs, from the policy's current weights (in the demo, behaviour cloning's):
 * those weights are the frozen reference πref, whose log-probabilities of every pair are computed
 * once before the first step. Training stops early on a held-out share of the pairs (see
 * {@link DpoOptions.validationShare}); the policy ends with the best epoch's weights.
 */
export function directPreferenceOptimization(
  policy: TrainablePolicy,
  pairs: readonly PreferencePair[],
  {
    beta = 0.1,
    validationShare = 0.2,
    epochs,
    patience = 10,
    minibatchSize = 64,
    learningRate = 1e-3,
    maxGradNorm = 1,
    seed = 0,
  }: DpoOptions = {},
): DpoResult {
  if (pairs.length === 0) {
    throw new NoPreferencePairsError(
      'DPO: no preference pairs. Offline data yields them where a success and a failure stood in the same state; collect several episodes per task, or label the data with an expert (expertPreferencePairs).',
    );
  }
  if (!(beta > 0)) throw new ConfigError(`DPO: beta must be > 0, got ${beta}; the usual is 0.1.`);
  if (!(validationShare >= 0 && validationShare < 1)) {
    throw new ConfigError(
      `DPO: validationShare must be in [0, 1), got ${validationShare}; 0 trains a fixed number of epochs.`,
    );
  }
  const scored = withReference(policy, pairs);
  const warnings: string[] = [];
  let held = validationShare > 0 ? Math.round(validationShare * scored.length) : 0;
  if (validationShare > 0) held = Math.min(scored.length - 1, Math.max(1, held));
  if (validationShare > 0 && held === 0) {
    warnings.push(
      `only ${scored.length} preference pair: none left to hold out, so DPO trained a fixed ${epochs ?? 8} epochs.`,
    );
  }
  const shuffled = new Rng(seed).fork('dpo-validation').shuffle([...scored]);
  const train = shuffled.slice(held);
  const validation = shuffled.slice(0, held);
  const rng = new Rng(seed).fork('dpo-minibatches');
  const optimizer = tf.train.adam(learningRate);
  const epoch = () => dpoEpoch(policy, optimizer, train, rng, { beta, minibatchSize, maxGradNorm });
  try {
    if (held === 0) {
      const fixed = epochs ?? 8;
      let trainLoss = 0;
      for (let n = 0; n < fixed; n++) trainLoss = epoch();
      return { pairs: train.length, epochs: fixed, trainLoss, warnings };
    }
    const { best, curve } = trainWithEarlyStopping(
      policy.variables,
      { maxEpochs: epochs ?? 100, patience },
      (n): DpoEpochScore => ({
        epoch: n,
        trainLoss: epoch(),
        ...heldOutScore(policy, validation, beta),
      }),
      (score) => score.loss,
    );
    return {
      pairs: train.length,
      epochs: curve.length,
      trainLoss: curve.at(-1)?.trainLoss ?? 0,
      validation: { pairs: held, bestEpoch: best.epoch, best, curve },
      warnings,
    };
  } finally {
    optimizer.dispose();
  }
}

/** A pair as the two decisions the policy scores, with the reference's log-probabilities. */
interface ScoredPair {
  chosen: RecordedDecision;
  rejected: RecordedDecision;
  referenceChosen: number;
  referenceRejected: number;
}

/** The pairs' decisions, made once (the policy caches features by decision), with πref's scores. */
function withReference(policy: TrainablePolicy, pairs: readonly PreferencePair[]): ScoredPair[] {
  const decisions = pairs.map(pairDecisions);
  const chosen = logProbsOf(
    policy,
    decisions.map(([w]) => w),
  );
  const rejected = logProbsOf(
    policy,
    decisions.map(([, l]) => l),
  );
  return decisions.map(([w, l], i) => ({
    chosen: w,
    rejected: l,
    referenceChosen: chosen[i] as number,
    referenceRejected: rejected[i] as number,
  }));
}

/** log π of each decision under the current weights, as numbers. */
function logProbsOf(policy: TrainablePolicy, decisions: readonly RecordedDecision[]): number[] {
  const out: number[] = [];
  for (let start = 0; start < decisions.length; start += 64) {
    const batch = decisions.slice(start, start + 64);
    out.push(...tf.tidy(() => Array.from(policy.evaluate(batch).logProbs.dataSync())));
  }
  return out;
}

/** The DPO loss of a batch of pairs under the current weights (differentiable). */
function batchLoss(
  policy: TrainablePolicy,
  batch: readonly ScoredPair[],
  beta: number,
): DpoLossOutput {
  return dpoLoss(
    {
      chosen: policy.evaluate(batch.map((p) => p.chosen)).logProbs,
      rejected: policy.evaluate(batch.map((p) => p.rejected)).logProbs,
    },
    {
      chosen: tf.tensor1d(batch.map((p) => p.referenceChosen)),
      rejected: tf.tensor1d(batch.map((p) => p.referenceRejected)),
    },
    beta,
  );
}

/** One pass over `pairs` in an order drawn from `rng`; the mean loss of its minibatches. */
function dpoEpoch(
  policy: TrainablePolicy,
  optimizer: Optimizer,
  pairs: readonly ScoredPair[],
  rng: Rng,
  {
    beta,
    minibatchSize,
    maxGradNorm,
  }: { beta: number; minibatchSize: number; maxGradNorm: number },
): number {
  const order = rng.shuffle(pairs.map((_, i) => i));
  let sum = 0;
  let minibatches = 0;
  for (let start = 0; start < order.length; start += minibatchSize) {
    const batch = order.slice(start, start + minibatchSize).map((i) => pairs[i] as ScoredPair);
    const stats = gradientStep(optimizer, policy.variables, maxGradNorm, () => {
      const { loss } = batchLoss(policy, batch, beta);
      return { loss, report: { loss } };
    });
    sum += stats.loss ?? 0;
    minibatches++;
  }
  return minibatches ? sum / minibatches : 0;
}

/** The held-out pairs' mean DPO loss, margin and accuracy (pair-weighted over batches of 64). */
function heldOutScore(
  policy: TrainablePolicy,
  pairs: readonly ScoredPair[],
  beta: number,
): Pick<DpoEpochScore, 'loss' | 'margin' | 'accuracy'> {
  const sums = { loss: 0, margin: 0, accuracy: 0 };
  for (let start = 0; start < pairs.length; start += 64) {
    const batch = pairs.slice(start, start + 64);
    const out = tf.tidy(() => {
      const { loss, margin, accuracy } = batchLoss(policy, batch, beta);
      return [loss, margin, accuracy].map((t) => t.dataSync()[0] as number);
    });
    sums.loss += (out[0] as number) * batch.length;
    sums.margin += (out[1] as number) * batch.length;
    sums.accuracy += (out[2] as number) * batch.length;
  }
  return {
    loss: sums.loss / pairs.length,
    margin: sums.margin / pairs.length,
    accuracy: sums.accuracy / pairs.length,
  };
}
