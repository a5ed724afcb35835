import type { Provenance, Step, StepInfo, Transition } from '../core/types.ts';

/** A transition as stored: the transition plus where it came from. */
export interface StoredTransition extends Transition {
  /** Row id in the buffer. */
  id: number;
  trajectoryId: string;
  provenance: Provenance;
  policyId: string;
  info?: StepInfo;
}

/** A stored transition found by `retrieve`, with its similarity to the query. */
export interface RetrievedTransition extends StoredTransition {
  /** Cosine similarity of the query key and this transition's key, in [-1, 1]. */
  similarity: number;
}

/** A stored transition as the trajectory step it was recorded from. */
export function stepOf(t: StoredTransition): Step {
  const step: Step = {
    action: t.action,
    observation: t.nextState,
    reward: t.reward,
    terminated: t.terminated,
    truncated: t.truncated,
  };
  if (t.reasoning !== undefined) step.reasoning = t.reasoning;
  if (t.info !== undefined) step.info = t.info;
  return step;
}
