/**
 * Sim/real rank agreement: do the synthetic env and the real one order policies alike? The same
 * policies evaluated in both, Kendall's τ between their synthetic and real scores, with a
 * bootstrap interval over the evaluation episodes. A synthetic env that ranks policies as the real
 * one does can choose between them (model selection, early stopping) without a real step.
 */
import { Rng } from '../core/rng.ts';

/** One policy's per-episode scores (success 0/1 or return) in the synthetic and the real env. */
export interface PolicyScores {
  policy: string;
  synthetic: readonly number[];
  real: readonly number[];
}

/** Kendall's τ with its bootstrap interval. */
export interface RankAgreement {
  /** τ-b of the policies' mean synthetic and mean real scores; NaN when either side is all ties. */
  tau: number;
  /** 2.5th and 97.5th percentiles of τ over the bootstrap resamples that define one. */
  low: number;
  high: number;
  policies: number;
  /** Resamples drawn, and how many had a defined τ (a resample of all ties has none). */
  resamples: number;
  defined: number;
}

/**
 * Kendall's τ-b of two equally long lists: (concordant − discordant) pairs over the geometric mean
 * of the pairs untied in each list, so ties count as neither. NaN when a list is all ties.
 */
export function kendallTau(x: readonly number[], y: readonly number[]): number {
  if (x.length !== y.length) {
    throw new RangeError(`kendallTau: the lists differ in length (${x.length} and ${y.length}).`);
  }
  let concordant = 0;
  let discordant = 0;
  let untiedX = 0;
  let untiedY = 0;
  for (let i = 0; i < x.length; i++) {
    for (let j = i + 1; j < x.length; j++) {
      const dx = Math.sign((x[j] as number) - (x[i] as number));
      const dy = Math.sign((y[j] as number) - (y[i] as number));
      if (dx !== 0) untiedX++;
      if (dy !== 0) untiedY++;
      if (dx * dy > 0) concordant++;
      else if (dx * dy < 0) discordant++;
    }
  }
  const denominator = Math.sqrt(untiedX * untiedY);
  return denominator === 0 ? Number.NaN : (concordant - discordant) / denominator;
}

/** Options of {@link rankAgreement}. */
export interface RankAgreementOptions {
  /** Bootstrap resamples. Default 2,000. */
  resamples?: number;
  /** Seed of the resampling. Default 0. */
  seed?: number;
}

/**
 * Kendall's τ between the policies' mean synthetic and mean real scores, with a percentile
 * bootstrap interval: each resample redraws every policy's synthetic and real episodes with
 * replacement (the episodes are the noisy part; the policies are fixed). Needs ≥ 2 policies,
 * each with episodes on both sides.
 */
export function rankAgreement(
  scores: readonly PolicyScores[],
  { resamples = 2000, seed = 0 }: RankAgreementOptions = {},
): RankAgreement {
  if (scores.length < 2) {
    throw new RangeError(`rank agreement needs at least 2 policies, got ${scores.length}.`);
  }
  for (const s of scores) {
    if (s.synthetic.length === 0 || s.real.length === 0) {
      const side = s.synthetic.length === 0 ? 'synthetic' : 'real';
      throw new RangeError(`rank agreement: policy ${s.policy} has no ${side} episodes.`);
    }
  }
  const tau = kendallTau(
    scores.map((s) => mean(s.synthetic)),
    scores.map((s) => mean(s.real)),
  );
  const rng = new Rng(seed).fork('rank-agreement');
  const taus: number[] = [];
  for (let r = 0; r < resamples; r++) {
    const t = kendallTau(
      scores.map((s) => mean(resample(s.synthetic, rng))),
      scores.map((s) => mean(resample(s.real, rng))),
    );
    if (!Number.isNaN(t)) taus.push(t);
  }
  taus.sort((a, b) => a - b);
  return {
    tau,
    low: percentile(taus, 0.025),
    high: percentile(taus, 0.975),
    policies: scores.length,
    resamples,
    defined: taus.length,
  };
}

function mean(values: readonly number[]): number {
  return values.reduce((sum, v) => sum + v, 0) / values.length;
}

function resample(values: readonly number[], rng: Rng): number[] {
  return values.map(() => values[rng.int(values.length)] as number);
}

/** The q-quantile of sorted values (nearest rank); NaN for none. */
function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] as number;
}
