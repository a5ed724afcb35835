import { finalReward, isSuccess, type Trajectory } from '../core/types.ts';

export interface EpisodeSummary {
  episodes: number;
  /** Share of episodes that terminated with reward 1. */
  successRate: number;
  /** Mean final reward (WebShop's score in [0, 1]). */
  meanReward: number;
  meanSteps: number;
  /** Share of steps whose action the env rejected. */
  invalidActionRate: number;
  /** Share of episodes cut off (time limit, model failure) rather than terminated. */
  truncatedRate: number;
}

export function summarize(trajectories: readonly Trajectory[]): EpisodeSummary {
  const n = trajectories.length;
  let successes = 0;
  let reward = 0;
  let steps = 0;
  let invalid = 0;
  let truncated = 0;
  for (const t of trajectories) {
    if (isSuccess(t)) successes++;
    reward += finalReward(t);
    steps += t.steps.length;
    invalid += t.steps.filter((s) => s.info?.invalidAction !== undefined).length;
    if (t.steps.at(-1)?.truncated) truncated++;
  }
  return {
    episodes: n,
    successRate: n ? successes / n : 0,
    meanReward: n ? reward / n : 0,
    meanSteps: n ? steps / n : 0,
    invalidActionRate: steps ? invalid / steps : 0,
    truncatedRate: n ? truncated / n : 0,
  };
}

/** `0.953` → `95.3%`. */
export function percent(x: number): string {
  return `${(100 * x).toFixed(1)}%`;
}
