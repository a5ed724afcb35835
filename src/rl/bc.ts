import { tf } from '../core/tf.ts';
import { finalReward, type Step, type Trajectory } from '../core/types.ts';
import type { RecordedDecision, TrainablePolicy } from '../policy/policy.ts';
import { type BcMetrics, bcUpdate } from './update.ts';

/** Which episodes behaviour cloning learns from (by reward), and its epochs, minibatch size, learning rate and seed. */
export interface BehaviourCloningOptions {
  /** Keep trajectories whose final reward is at least this (1 = successes only). Default 1. */
  minReward?: number;
  epochs?: number;
  minibatchSize?: number;
  learningRate?: number;
  seed?: number;
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
 * of the offline trajectories that reached `minReward`.
 */
export function behaviourCloning(
  policy: TrainablePolicy,
  trajectories: readonly Trajectory[],
  {
    minReward = 1,
    epochs = 8,
    minibatchSize = 64,
    learningRate = 1e-3,
    seed = 0,
  }: BehaviourCloningOptions = {},
): BcMetrics & { trajectories: number; decisions: number } {
  const kept = trajectories.filter((t) => finalReward(t) >= minReward);
  if (kept.length === 0) {
    throw new Error(
      `behaviour cloning: no trajectory reaches reward ${minReward}; lower minReward or collect better data.`,
    );
  }
  const decisions = decisionsOf(kept);
  const optimizer = tf.train.adam(learningRate);
  try {
    return {
      ...bcUpdate(policy, optimizer, decisions, { epochs, minibatchSize, seed }),
      trajectories: kept.length,
      decisions: decisions.length,
    };
  } finally {
    optimizer.dispose();
  }
}
