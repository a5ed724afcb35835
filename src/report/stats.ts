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
