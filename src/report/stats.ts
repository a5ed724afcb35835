/** Confidence intervals for the report's figures. */

export interface Estimate {
  mean: number;
  /** Lower and upper ends of the 95% interval. */
  low: number;
  high: number;
  n: number;
}

/** A success rate with its 95% Wilson score interval (sound for rates near 0 or 1 and small n). */
export function wilson(successes: number, n: number, z = 1.96): Estimate {
  if (n === 0) return { mean: 0, low: 0, high: 0, n };
  const p = successes / n;
  const denominator = 1 + (z * z) / n;
  const centre = (p + (z * z) / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denominator;
  return { mean: p, low: Math.max(0, centre - half), high: Math.min(1, centre + half), n };
}

/** A mean with a normal-approximation 95% interval (± 1.96 standard errors). */
export function meanInterval(values: readonly number[], z = 1.96): Estimate {
  const n = values.length;
  if (n === 0) return { mean: 0, low: 0, high: 0, n };
  const mean = values.reduce((s, x) => s + x, 0) / n;
  const variance = n > 1 ? values.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1) : 0;
  const half = z * Math.sqrt(variance / n);
  return { mean, low: mean - half, high: mean + half, n };
}

/** `52.0% [45.1, 58.8]` */
export function formatRate(e: Estimate): string {
  return `${(100 * e.mean).toFixed(1)}% [${(100 * e.low).toFixed(1)}, ${(100 * e.high).toFixed(1)}]`;
}

/** `0.811 ± 0.034` */
export function formatMean(e: Estimate): string {
  return `${e.mean.toFixed(3)} ± ${((e.high - e.low) / 2).toFixed(3)}`;
}

/** Two-sided 97.5% quantiles of Student's t for 1…30 degrees of freedom. */
const T_975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145,
  2.131, 2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048,
  2.045, 2.042,
];

/** The mean of `values` with a 95% Student-t interval (n − 1 degrees of freedom), unclipped. */
function tInterval(values: readonly number[]): Estimate {
  const n = values.length;
  if (n === 0) return { mean: 0, low: 0, high: 0, n };
  const mean = values.reduce((s, x) => s + x, 0) / n;
  if (n === 1) return { mean, low: mean, high: mean, n };
  const sd = Math.sqrt(values.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
  const half = ((T_975[n - 2] ?? 1.96) * sd) / Math.sqrt(n);
  return { mean, low: mean - half, high: mean + half, n };
}

/**
 * The mean of per-seed rates with a 95% Student-t interval across seeds (clipped to [0, 1]): the
 * spread from training itself, which per-seed intervals over test episodes do not show. With one
 * seed the interval is that seed's value alone.
 */
export function acrossSeeds(rates: readonly number[]): Estimate {
  const e = tInterval(rates);
  return { ...e, low: Math.max(0, e.low), high: Math.min(1, e.high) };
}

/**
 * The mean per-seed difference `a[i] − b[i]` of two methods run on the same seeds, with a 95%
 * Student-t interval across seeds (the paired interval: each seed's shared data and tasks cancel).
 */
export function pairedAcrossSeeds(a: readonly number[], b: readonly number[]): Estimate {
  if (a.length !== b.length) {
    throw new RangeError(
      `paired seeds: ${a.length} values against ${b.length}; pair them seed by seed`,
    );
  }
  return tInterval(a.map((x, i) => x - (b[i] as number)));
}

/**
 * McNemar's exact test for two policies run on the same tasks: `better` tasks only the first
 * solved, `worse` tasks only the second solved (tasks both or neither solved say nothing). The
 * two-sided p-value of so lopsided a split if either were as likely: the binomial tail of
 * min(better, worse) among better + worse at one half, doubled, capped at 1.
 */
export function mcnemarExact(better: number, worse: number): number {
  const n = better + worse;
  if (n === 0) return 1;
  const k = Math.min(better, worse);
  // log C(n, i) − n log 2, summed term by term in log space (no underflow at large n).
  let logTerm = -n * Math.LN2;
  let tail = Math.exp(logTerm);
  for (let i = 0; i < k; i++) {
    logTerm += Math.log(n - i) - Math.log(i + 1);
    tail += Math.exp(logTerm);
  }
  return Math.min(1, 2 * tail);
}
