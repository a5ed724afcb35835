import { type Tensor, tf } from '../core/tf.ts';
import type { TrainablePolicy } from '../policy/policy.ts';

/** A copy of a policy's weights as they were, kept outside tf's scopes until disposed. */
export interface WeightsSnapshot {
  /** Puts the copied weights back into the policy they were taken from. */
  restore(): void;
  dispose(): void;
}

/** The policy's weights as they are now (see {@link WeightsSnapshot}). */
export function snapshotWeights(policy: TrainablePolicy): WeightsSnapshot {
  const copy: Tensor[] = policy.variables.map((v) => tf.keep(tf.clone(v)));
  return {
    restore() {
      for (const [i, v] of policy.variables.entries()) v.assign(copy[i] as Tensor);
    },
    dispose() {
      for (const t of copy) t.dispose();
    },
  };
}
