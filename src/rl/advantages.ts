/**
 * Advantage estimators, as pure functions over plain arrays (after CleanRL and verl's
 * `core_algos`), registered by name. An episode is one group member's steps, in order.
 */
import { ConfigError } from '../core/errors.ts';

export interface EpisodeRewards {
  /** Episodes with the same group id were rolled out on the same task (GRPO's group). */
  groupId: string;
  rewards: readonly number[];
  /** V(s_t) recorded at sampling time (unused by GRPO). */
  values: readonly number[];
  /** The episode ended by itself: nothing follows the last state. */
  terminated: boolean;
  /** The episode was cut off: the last state had a future worth V(s_T). */
  truncated: boolean;
  /** V(s_T) of the state after the last step; used only when truncated. */
  bootstrapValue: number;
}

export interface Advantages {
  /** Per episode, per step. */
  advantages: number[][];
  /** Per episode, per step: the value targets (advantage + value for GAE). */
  returns: number[][];
}

export interface AdvantageOptions {
  /** Discount γ. Default 1 (episodic tasks, outcome rewards). */
  gamma?: number;
  /** GAE's λ. Default 0.95. */
  lambda?: number;
  /** GRPO: divide by the group's reward standard deviation. Default true. */
  normalizeStd?: boolean;
}

/**
 * GAE(γ, λ) (Schulman et al., 2016). Bootstraps from `bootstrapValue` when the episode was
 * truncated and from 0 when it terminated: a time limit is not the end of the task.
 */
export function gae(
  episodes: readonly EpisodeRewards[],
  { gamma = 1, lambda = 0.95 }: AdvantageOptions = {},
): Advantages {
  const advantages: number[][] = [];
  const returns: number[][] = [];
  for (const e of episodes) {
    const T = e.rewards.length;
    const adv = new Array<number>(T).fill(0);
    let running = 0;
    for (let t = T - 1; t >= 0; t--) {
      const next =
        t === T - 1 ? (e.terminated ? 0 : e.bootstrapValue) : (e.values[t + 1] as number);
      const delta = (e.rewards[t] as number) + gamma * next - (e.values[t] as number);
      running = delta + gamma * lambda * running;
      adv[t] = running;
    }
    advantages.push(adv);
    returns.push(adv.map((a, t) => a + (e.values[t] as number)));
  }
  return { advantages, returns };
}

/**
 * GRPO's outcome advantage (Shao et al., 2024): each episode's total reward minus its group's
 * mean, divided by the group's standard deviation when `normalizeStd`, given to every step of the
 * episode. A group whose rewards are all equal teaches nothing: its advantages are 0.
 */
export function grpo(
  episodes: readonly EpisodeRewards[],
  { normalizeStd = true }: AdvantageOptions = {},
): Advantages {
  const outcome = episodes.map((e) => e.rewards.reduce((s, r) => s + r, 0));
  const groups = new Map<string, number[]>();
  episodes.forEach((e, i) => {
    const members = groups.get(e.groupId) ?? [];
    members.push(outcome[i] as number);
    groups.set(e.groupId, members);
  });
  const stats = new Map(
    [...groups].map(([id, rs]) => {
      const mean = rs.reduce((s, r) => s + r, 0) / rs.length;
      const std = Math.sqrt(rs.reduce((s, r) => s + (r - mean) ** 2, 0) / rs.length);
      return [id, { mean, std }];
    }),
  );
  const advantages = episodes.map((e, i) => {
    const { mean, std } = stats.get(e.groupId) as { mean: number; std: number };
    const centered = (outcome[i] as number) - mean;
    const a = normalizeStd ? (std > 1e-8 ? centered / std : 0) : centered;
    return e.rewards.map(() => a);
  });
  return { advantages, returns: episodes.map((e, i) => e.rewards.map(() => outcome[i] as number)) };
}

export const ADVANTAGE_ESTIMATORS = { gae, grpo } as const;
export type AdvantageEstimatorName = keyof typeof ADVANTAGE_ESTIMATORS;

/** An estimator by name; an unknown name lists the known ones. */
export function advantageEstimator(name: string) {
  const estimator = ADVANTAGE_ESTIMATORS[name as AdvantageEstimatorName];
  if (!estimator) {
    throw new ConfigError(
      `unknown advantage estimator "${name}"; available: ${Object.keys(ADVANTAGE_ESTIMATORS).join(', ')}.`,
    );
  }
  return estimator;
}

/** 1 − Var(returns − values) / Var(returns): how much of the return the value head explains. */
export function explainedVariance(values: readonly number[], returns: readonly number[]): number {
  const variance = (xs: readonly number[]) => {
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    return xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length;
  };
  const v = variance(returns);
  return v === 0 ? Number.NaN : 1 - variance(returns.map((r, i) => r - (values[i] as number))) / v;
}
