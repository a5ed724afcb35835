import { type Tensor, type Tensor1D, tf } from '../core/tf.ts';

export interface PpoLossInputs {
  /** log π_θ(a|s) under the weights being trained. */
  logProbs: Tensor1D;
  /** log π_old(a|s) recorded when the action was sampled. */
  oldLogProbs: Tensor1D;
  advantages: Tensor1D;
  /** V_θ(s). */
  values: Tensor1D;
  /** Value targets. */
  returns: Tensor1D;
  /** Entropy of π_θ(·|s). */
  entropy: Tensor1D;
  /** log π_ref(a|s) under the reference policy; needed when `klCoef` > 0. */
  refLogProbs?: Tensor1D;
}

export interface PpoLossOptions {
  /** Clip range ε of the probability ratio. Default 0.2. */
  clip?: number;
  /** Weight of the value loss; 0 for critic-free GRPO. Default 0.5. */
  valueCoef?: number;
  /** Weight of the entropy bonus. Default 0.01. */
  entropyCoef?: number;
  /**
   * Weight β of GRPO's penalty on KL(π_θ ‖ π_ref), the drift from a reference policy (Shao et
   * al., 2024). Default 0: no penalty.
   */
  klCoef?: number;
}

export interface PpoLoss {
  /** What the optimiser minimises. */
  loss: Tensor;
  policyLoss: Tensor;
  valueLoss: Tensor;
  entropy: Tensor;
  /** k3 estimate of KL(π_old ‖ π_θ): mean((r − 1) − log r). */
  approxKl: Tensor;
  /** Share of samples whose ratio left [1 − ε, 1 + ε]. */
  clipFraction: Tensor;
  /** k3 estimate of KL(π_θ ‖ π_ref) on the sampled actions; 0 without a reference. */
  refKl: Tensor;
}

/**
 * PPO's clipped surrogate objective with value loss and entropy bonus (Schulman et al., 2017),
 * in CleanRL's order: ratio, clipped ratio, the pessimistic max of the two losses; with
 * `klCoef`, GRPO's KL penalty towards a reference policy, by the unbiased k3 estimator
 * π_ref/π_θ − log(π_ref/π_θ) − 1 on the sampled actions.
 */
export function ppoLoss(
  x: PpoLossInputs,
  { clip = 0.2, valueCoef = 0.5, entropyCoef = 0.01, klCoef = 0 }: PpoLossOptions = {},
): PpoLoss {
  if (klCoef > 0 && !x.refLogProbs) {
    throw new Error('ppoLoss: klCoef > 0 needs the reference log-probabilities (refLogProbs).');
  }
  const logRatio = tf.sub(x.logProbs, x.oldLogProbs);
  const ratio = tf.exp(logRatio);
  const unclipped = tf.mul(tf.neg(x.advantages), ratio);
  const clipped = tf.mul(tf.neg(x.advantages), tf.clipByValue(ratio, 1 - clip, 1 + clip));
  const policyLoss = tf.mean(tf.maximum(unclipped, clipped));
  const valueLoss = tf.mul(0.5, tf.mean(tf.square(tf.sub(x.values, x.returns))));
  const entropy = tf.mean(x.entropy);
  // k3 with d = log π_ref − log π_θ: e^d − d − 1, never negative, 0 where the two agree.
  const refGap = x.refLogProbs ? tf.sub(x.refLogProbs, x.logProbs) : undefined;
  const refKl = refGap ? tf.mean(tf.sub(tf.sub(tf.exp(refGap), refGap), 1)) : tf.scalar(0);
  const loss = tf.add(
    tf.add(tf.sub(policyLoss, tf.mul(entropyCoef, entropy)), tf.mul(valueCoef, valueLoss)),
    tf.mul(klCoef, refKl),
  );
  const approxKl = tf.mean(tf.sub(tf.sub(ratio, 1), logRatio));
  const clipFraction = tf.mean(tf.cast(tf.greater(tf.abs(tf.sub(ratio, 1)), clip), 'float32'));
  return { loss, policyLoss, valueLoss, entropy, approxKl, clipFraction, refKl };
}
