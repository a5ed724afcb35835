import type { Provenance, StepInfo, Transition } from '../core/types.ts';

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
