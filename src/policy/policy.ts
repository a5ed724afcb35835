import type { Rng } from '../core/rng.ts';
import type { Tensor1D, Variable } from '../core/tf.ts';
import type { Observation, Step, Task } from '../core/types.ts';

/** What a policy may know besides the observation. */
export interface PolicyContext {
  task: Task;
  /** The episode's steps so far, oldest first. */
  history: readonly Step[];
  /** The episode's own random stream: same seed, same episode, whatever runs beside it. */
  rng: Rng;
}

/** A policy's decision: the action, and what sampling policies know about it. */
export interface PolicyAction {
  action: string;
  /** Log-probability of the action under the policy, for policies that sample. */
  logProb?: number;
  /** The policy's value estimate of the state, for actor-critic policies. */
  value?: number;
  reasoning?: string;
}

/** Maps an observation to an action. Trainable policies add `update`, `save` and `load`. */
export interface Policy {
  /** Recorded as the trajectory's `policyId`, e.g. `expert(eps=0.3)`. */
  readonly id: string;
  /** Chooses the next action for the observation. */
  act(observation: Observation, context: PolicyContext): Promise<PolicyAction>;
}

/** A decision as recorded during a rollout: enough to score it again under new weights. */
export interface RecordedDecision {
  observation: Observation;
  /** Actions taken before it in the episode, oldest first. */
  history: readonly string[];
  /** The env's reply to each history action (same length), for policies with episode memory. */
  observations?: readonly Observation[];
  action: string;
}

/** Differentiable quantities of recorded decisions, one entry per decision. */
export interface DecisionEvaluation {
  /** log π(action | state) at temperature 1. */
  logProbs: Tensor1D;
  /** Entropy of π(· | state). */
  entropy: Tensor1D;
  /** V(state). */
  values: Tensor1D;
}

/**
 * A policy the RL algorithms can train. It exposes what the losses need (differentiable
 * evaluation of recorded decisions, its variables) rather than an `update` of its own: the loss
 * is the algorithm's business (PPO, GRPO, BC), the policy's is to score actions.
 */
export interface TrainablePolicy extends Policy {
  /** log π, entropy and V of recorded decisions under the current weights, differentiably. */
  evaluate(decisions: readonly RecordedDecision[]): DecisionEvaluation;
  readonly variables: Variable[];
  /** Writes the weights (and what is needed to load them) to a folder. */
  save(dir: string): Promise<void>;
}
