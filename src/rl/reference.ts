import { tf } from '../core/tf.ts';
import type { RecordedDecision, TrainablePolicy } from '../policy/policy.ts';
import { snapshotWeights } from './weights.ts';

/** GRPO's reference policy π_ref: scores recorded decisions without being trained. */
export interface ReferencePolicy {
  /** log π_ref(a|s) of each decision. */
  logProbs(decisions: readonly RecordedDecision[]): number[];
  /** Frees what the reference holds (not the policy it was taken from). */
  dispose(): void;
}

/** Decisions scored per forward pass, to bound memory on large batches. */
const CHUNK = 256;

/** A separate policy used as the reference as it is (the caller keeps it from training). */
export function policyReference(policy: TrainablePolicy): ReferencePolicy {
  return { logProbs: (decisions) => score(policy, decisions), dispose: () => {} };
}

/**
 * The policy's weights as they are now, frozen: later scores load them into the policy for the
 * forward pass and put the trained weights back, so no second copy of the policy is needed.
 */
export function frozenReference(policy: TrainablePolicy): ReferencePolicy {
  const frozen = snapshotWeights(policy);
  return {
    logProbs(decisions) {
      const trained = snapshotWeights(policy);
      try {
        frozen.restore();
        return score(policy, decisions);
      } finally {
        trained.restore();
        trained.dispose();
      }
    },
    dispose: () => frozen.dispose(),
  };
}

function score(policy: TrainablePolicy, decisions: readonly RecordedDecision[]): number[] {
  const out: number[] = [];
  for (let start = 0; start < decisions.length; start += CHUNK) {
    const chunk = decisions.slice(start, start + CHUNK);
    out.push(...tf.tidy(() => Array.from(policy.evaluate(chunk).logProbs.dataSync())));
  }
  return out;
}
