/**
 * Reward statistics from the sums a task pool stores per rollout group: attempts, Σr, Σr² and
 * successes are enough for a group's mean and variance, and add up across iterations and across
 * the server instances that file a group's episodes.
 */
import { ConfigError } from '../core/errors.ts';
import {
  type GroupStats,
  type PoolIterationStats,
  type RewardStats,
  SUCCESS_REWARD,
} from './task-pool.ts';

/** A rollout group's sums, as both databases store them. */
export interface RewardSums {
  attempts: number;
  reward_sum: number;
  reward_square_sum: number;
  successes: number;
}

/** Mean, V = mean of (r − r̄)² and successes of the rollouts these sums cover. */
export function rewardStats(sums: RewardSums): RewardStats {
  const mean = sums.attempts > 0 ? sums.reward_sum / sums.attempts : 0;
  const variance =
    sums.attempts > 0 ? Math.max(0, sums.reward_square_sum / sums.attempts - mean * mean) : 0;
  return { attempts: sums.attempts, meanReward: mean, variance, successes: sums.successes };
}

/** The sums of a group's rewards. */
export function sumsOf(rewards: readonly number[]): RewardSums {
  return {
    attempts: rewards.length,
    reward_sum: rewards.reduce((s, r) => s + r, 0),
    reward_square_sum: rewards.reduce((s, r) => s + r * r, 0),
    successes: rewards.filter((r) => r >= SUCCESS_REWARD).length,
  };
}

/** Episodes' rewards grouped by task, in the order the tasks first appear. */
export function groupRewards(
  episodes: ReadonlyArray<{ taskId: string; reward: number }>,
): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  for (const { taskId, reward } of episodes) {
    if (!Number.isFinite(reward)) {
      throw new ConfigError(`task ${taskId}: reward ${reward} is not a finite number.`);
    }
    groups.set(taskId, [...(groups.get(taskId) ?? []), reward]);
  }
  return groups;
}

/** The error for rollouts of tasks the pool does not hold. */
export function unknownTaskError(taskId: string): ConfigError {
  return new ConfigError(
    `rollouts of task ${taskId}, which is not in the task pool: record only tasks the curriculum handed out.`,
  );
}

/**
 * One entry per iteration of `groups` (in iteration order), given when each pooled task was
 * generated (undefined for seed tasks).
 */
export function iterationStats(
  groups: readonly GroupStats[],
  created: ReadonlyArray<number | undefined>,
): PoolIterationStats[] {
  const played = new Map<number, GroupStats[]>();
  for (const group of groups) {
    played.set(group.iteration, [...(played.get(group.iteration) ?? []), group]);
  }
  return [...played]
    .sort(([a], [b]) => a - b)
    .map(([iteration, groups]) => {
      const attempts = groups.reduce((s, g) => s + g.attempts, 0);
      const generatedByThen = created.filter((c) => c !== undefined && c <= iteration).length;
      return {
        iteration,
        poolSize: created.filter((c) => c === undefined).length + generatedByThen,
        generatedTasks: generatedByThen,
        newTasks: created.filter((c) => c === iteration).length,
        tasksPlayed: groups.length,
        informativeShare:
          groups.filter((g) => g.successes > 0 && g.successes < g.attempts).length / groups.length,
        meanVariance: groups.reduce((s, g) => s + g.variance, 0) / groups.length,
        meanReward: groups.reduce((s, g) => s + g.meanReward * g.attempts, 0) / attempts,
      };
    });
}
