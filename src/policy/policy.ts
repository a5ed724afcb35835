import type { Rng } from '../core/rng.ts';
import type { Observation, Step, Task } from '../core/types.ts';

/** What a policy may know besides the observation. */
export interface PolicyContext {
  task: Task;
  /** The episode's steps so far, oldest first. */
  history: readonly Step[];
  /** The episode's own random stream: same seed, same episode, whatever runs beside it. */
  rng: Rng;
}

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
  act(observation: Observation, context: PolicyContext): Promise<PolicyAction>;
}
