import { Rng } from '../core/rng.ts';
import { type Tensor, tf, type Variable } from '../core/tf.ts';
import type { RecordedDecision, TrainablePolicy } from '../policy/policy.ts';
import { type PpoLossOptions, ppoLoss } from './ppo.ts';

/** The optimiser every update here steps with. */
export type Optimizer = ReturnType<typeof tf.train.adam>;

/** A decision with its training targets. */
export interface PolicySample extends RecordedDecision {
  logProb: number;
  value: number;
  advantage: number;
  return: number;
  /** log π_ref(a|s) under the reference policy, where the update penalises drift from it. */
  refLogProb?: number;
}

/** An update's epochs, minibatch size, gradient clipping, advantage standardisation and seed. */
export interface UpdateOptions extends PpoLossOptions {
  /** Passes over the batch. Default 4. */
  epochs?: number;
  /** Decisions per gradient step. Default 64. */
  minibatchSize?: number;
  /** Clip the global gradient norm to this. Default 0.5. */
  maxGradNorm?: number;
  /** Standardise advantages within each minibatch (PPO; GRPO's are already scaled). Default true. */
  normalizeAdvantages?: boolean;
  /** Shuffles minibatches. */
  seed?: number;
}

/** One policy update's losses, entropy, approximate KL, clip fraction and gradient norm. */
export interface UpdateMetrics {
  policyLoss: number;
  valueLoss: number;
  entropy: number;
  approxKl: number;
  clipFraction: number;
  /** KL(π_θ ‖ π_ref) estimated on the sampled actions; 0 without a reference. */
  refKl: number;
  gradNorm: number;
  minibatches: number;
}

/** PPO's update: epochs of shuffled minibatches of the clipped loss, gradients clipped by norm. */
export function ppoUpdate(
  policy: TrainablePolicy,
  optimizer: Optimizer,
  samples: readonly PolicySample[],
  options: UpdateOptions = {},
): UpdateMetrics {
  const { epochs = 4, minibatchSize = 64, normalizeAdvantages = true } = options;
  const penalised = (options.klCoef ?? 0) > 0;
  if (penalised && samples.some((s) => s.refLogProb === undefined)) {
    throw new Error(
      'ppoUpdate: klCoef > 0 needs every sample scored by the reference (refLogProb).',
    );
  }
  const rng = new Rng(options.seed ?? 0).fork('minibatches');
  const sums = {
    policyLoss: 0,
    valueLoss: 0,
    entropy: 0,
    approxKl: 0,
    clipFraction: 0,
    refKl: 0,
    gradNorm: 0,
  };
  let minibatches = 0;
  for (let epoch = 0; epoch < epochs; epoch++) {
    const order = rng.shuffle(samples.map((_, i) => i));
    for (let start = 0; start < order.length; start += minibatchSize) {
      const batch = order
        .slice(start, start + minibatchSize)
        .map((i) => samples[i] as PolicySample);
      let advantages = batch.map((s) => s.advantage);
      if (normalizeAdvantages && batch.length > 1) advantages = standardize(advantages);
      const stats = gradientStep(optimizer, policy.variables, options.maxGradNorm ?? 0.5, () => {
        const evaluation = policy.evaluate(batch);
        const out = ppoLoss(
          {
            logProbs: evaluation.logProbs,
            oldLogProbs: tf.tensor1d(batch.map((s) => s.logProb)),
            advantages: tf.tensor1d(advantages),
            values: evaluation.values,
            returns: tf.tensor1d(batch.map((s) => s.return)),
            entropy: evaluation.entropy,
            ...(penalised && {
              refLogProbs: tf.tensor1d(batch.map((s) => s.refLogProb as number)),
            }),
          },
          options,
        );
        return {
          loss: out.loss,
          report: {
            policyLoss: out.policyLoss,
            valueLoss: out.valueLoss,
            entropy: out.entropy,
            approxKl: out.approxKl,
            clipFraction: out.clipFraction,
            refKl: out.refKl,
          },
        };
      });
      for (const key of Object.keys(sums) as Array<keyof typeof sums>) sums[key] += stats[key] ?? 0;
      minibatches++;
    }
  }
  const mean = (x: number) => (minibatches ? x / minibatches : 0);
  return {
    policyLoss: mean(sums.policyLoss),
    valueLoss: mean(sums.valueLoss),
    entropy: mean(sums.entropy),
    approxKl: mean(sums.approxKl),
    clipFraction: mean(sums.clipFraction),
    refKl: mean(sums.refKl),
    gradNorm: mean(sums.gradNorm),
    minibatches,
  };
}

/** Behaviour cloning's negative log-likelihood and minibatch count. */
export interface BcMetrics {
  /** Mean negative log-likelihood of the demonstrated actions, over the last epoch. */
  nll: number;
  minibatches: number;
}

/** Behaviour cloning: maximise log π(demonstrated action | state) over shuffled minibatches. */
export function bcUpdate(
  policy: TrainablePolicy,
  optimizer: Optimizer,
  decisions: readonly RecordedDecision[],
  { epochs = 4, minibatchSize = 64, maxGradNorm = 1, seed = 0 }: UpdateOptions = {},
): BcMetrics {
  const rng = new Rng(seed).fork('bc-minibatches');
  let last: BcMetrics = { nll: 0, minibatches: 0 };
  let minibatches = 0;
  for (let epoch = 0; epoch < epochs; epoch++) {
    last = bcEpoch(policy, optimizer, decisions, rng, { minibatchSize, maxGradNorm });
    minibatches += last.minibatches;
  }
  return { nll: last.nll, minibatches };
}

/**
 * One pass of behaviour cloning over `decisions` in an order drawn from `rng`: the mean
 * negative log-likelihood of its minibatches, and how many there were.
 */
export function bcEpoch(
  policy: TrainablePolicy,
  optimizer: Optimizer,
  decisions: readonly RecordedDecision[],
  rng: Rng,
  { minibatchSize = 64, maxGradNorm = 1 }: Pick<UpdateOptions, 'minibatchSize' | 'maxGradNorm'>,
): BcMetrics {
  let nll = 0;
  let minibatches = 0;
  const order = rng.shuffle(decisions.map((_, i) => i));
  for (let start = 0; start < order.length; start += minibatchSize) {
    const batch = order
      .slice(start, start + minibatchSize)
      .map((i) => decisions[i] as RecordedDecision);
    const stats = gradientStep(optimizer, policy.variables, maxGradNorm, () => {
      const loss = tf.neg(tf.mean(policy.evaluate(batch).logProbs));
      return { loss, report: { nll: loss } };
    });
    nll += stats.nll ?? 0;
    minibatches++;
  }
  return { nll: minibatches ? nll / minibatches : 0, minibatches };
}

/**
 * One optimiser step: gradients of `lossFn`'s loss, clipped to a global norm, applied. Returns
 * the reported scalars and the gradient norm before clipping.
 */
export function gradientStep(
  optimizer: Optimizer,
  variables: Variable[],
  maxGradNorm: number,
  lossFn: () => { loss: Tensor; report: Record<string, Tensor> },
): Record<string, number> {
  return tf.tidy(() => {
    let report: Record<string, Tensor> = {};
    const { grads } = tf.variableGrads(() => {
      const out = lossFn();
      report = Object.fromEntries(Object.entries(out.report).map(([k, v]) => [k, tf.keep(v)]));
      return out.loss as ReturnType<typeof tf.scalar>;
    }, variables);
    const norm = Math.sqrt(
      Object.values(grads).reduce((s, g) => s + (tf.sum(tf.square(g)).dataSync()[0] as number), 0),
    );
    const scale = norm > maxGradNorm ? maxGradNorm / norm : 1;
    optimizer.applyGradients(
      Object.fromEntries(Object.entries(grads).map(([k, g]) => [k, tf.mul(g, scale)])),
    );
    const values: Record<string, number> = { gradNorm: norm };
    for (const [k, v] of Object.entries(report)) {
      values[k] = v.dataSync()[0] as number;
      v.dispose();
    }
    return values;
  });
}

function standardize(xs: readonly number[]): number[] {
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  const std = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length);
  return xs.map((x) => (x - mean) / (std + 1e-8));
}
