import { solve } from '../../core/linear-solve.ts';

/**
 * A calibrated probability of success from an episode's terminal features: logistic regression
 * on standardised features, then Platt scaling fit on out-of-fold predictions (each real episode
 * scored by a model that did not see it), so that the probabilities mean what they say on
 * episodes the model has not seen. Its calibration on those held-out predictions is reported.
 */

/** One real episode's end: its features and whether it succeeded. */
export interface OutcomeSample {
  features: readonly number[];
  success: boolean;
}

/** How well the held-out probabilities matched what happened. */
export interface Calibration {
  /** Episodes scored out of fold. */
  samples: number;
  /** Mean squared error of the probabilities against the outcomes (0 is perfect). */
  brier: number;
  /** Expected calibration error over 10 equal-width bins of probability. */
  ece: number;
  /** Share of successes among the samples: the Brier score of always guessing it is the baseline. */
  baseRate: number;
}

/**
 * Where the probabilities are trusted to say an ending's outcome: a success at or above
 * `successFrom`, a failure at or below `failureTo`, and neither in between (the ending is left
 * unjudged). Chosen on the out-of-fold probabilities, so that at least {@link VERDICT_PRECISION}
 * of the real endings scored a success succeeded, and as many of those scored a failure failed.
 */
export interface Verdicts {
  successFrom: number;
  failureTo: number;
}

/** What an ending's probability says: a success, a failure, or nothing the buffer can vouch for. */
export type Verdict = 'success' | 'failure' | 'unjudged';

/** Share of the held-out real endings a verdict must get right (see {@link Verdicts}). */
export const VERDICT_PRECISION = 0.9;

/** Folds of the cross-fitting. */
const FOLDS = 5;
/** L2 penalty of the logistic regression (standardised features). */
const RIDGE = 0.05;

/** A fitted outcome model; {@link OutcomeModel.fit} it on real terminal steps. */
export class OutcomeModel {
  private constructor(
    private readonly weights: readonly number[],
    private readonly mean: readonly number[],
    private readonly scale: readonly number[],
    /** Platt scaling of the logit: p = σ(a · logit + b). */
    private readonly platt: readonly [number, number],
    /** The success rate when there was nothing to learn from (one class only, or no data). */
    private readonly constant: number | undefined,
    readonly calibration: Calibration,
    readonly verdicts: Verdicts,
  ) {}

  /** Fits on `samples`; with fewer than two of either outcome it predicts the base rate. */
  static fit(samples: readonly OutcomeSample[]): OutcomeModel {
    const n = samples.length;
    const successes = samples.filter((s) => s.success).length;
    const baseRate = n === 0 ? 0 : successes / n;
    const d = samples[0]?.features.length ?? 0;
    if (successes < 2 || n - successes < 2) {
      const calibration = { samples: n, brier: baseRate * (1 - baseRate), ece: 0, baseRate };
      const verdicts = verdictsOf(
        samples.map(() => baseRate),
        samples.map((s) => (s.success ? 1 : 0)),
      );
      return new OutcomeModel([], [], [], [1, 0], baseRate, calibration, verdicts);
    }
    const { mean, scale } = standardisation(samples, d);
    const rows = samples.map((s) => standardise(s.features, mean, scale));
    const labels = samples.map((s) => (s.success ? 1 : 0));
    const logits = new Array<number>(n).fill(0);
    for (let fold = 0; fold < FOLDS; fold++) {
      const train = rows.filter((_, i) => i % FOLDS !== fold);
      const trainLabels = labels.filter((_, i) => i % FOLDS !== fold);
      const w = logistic(train, trainLabels, RIDGE);
      rows.forEach((x, i) => {
        if (i % FOLDS === fold) logits[i] = dot(w, x);
      });
    }
    const platt = plattScaling(logits, labels);
    const held = logits.map((z) => sigmoid(platt[0] * z + platt[1]));
    const weights = logistic(rows, labels, RIDGE);
    return new OutcomeModel(
      weights,
      mean,
      scale,
      platt,
      undefined,
      calibrationOf(held, labels, baseRate),
      verdictsOf(held, labels),
    );
  }

  /** The calibrated probability that an episode ending with these features succeeded. */
  probability(features: readonly number[]): number {
    if (this.constant !== undefined) return this.constant;
    const z = dot(this.weights, standardise(features, this.mean, this.scale));
    return sigmoid(this.platt[0] * z + this.platt[1]);
  }

  /** What probability `p` says of an ending, by the thresholds of {@link Verdicts}: never a draw. */
  verdict(p: number): Verdict {
    if (p >= this.verdicts.successFrom) return 'success';
    if (p <= this.verdicts.failureTo) return 'failure';
    return 'unjudged';
  }
}

/**
 * The thresholds of {@link Verdicts} on probabilities `p` of endings with outcomes `y`: the lowest
 * `successFrom` whose endings at or above it succeeded in at least {@link VERDICT_PRECISION} of
 * cases, and the highest `failureTo` whose endings at or below it failed as often. Where no
 * threshold reaches that, none is a success (`successFrom` above 1) or a failure (`failureTo`
 * below 0). With no samples: everything unjudged.
 */
export function verdictsOf(p: readonly number[], y: readonly number[]): Verdicts {
  const order = p.map((pi, i) => [pi, y[i] as number] as const).sort((a, b) => a[0] - b[0]);
  let successFrom = Number.POSITIVE_INFINITY;
  let hits = 0;
  // From the top down: the lowest threshold whose endings above it are right often enough.
  for (let i = order.length - 1; i >= 0; i--) {
    hits += (order[i] as readonly [number, number])[1];
    const at = (order[i] as readonly [number, number])[0];
    // Ties share a threshold: judge at the last of equal probabilities.
    if (i > 0 && (order[i - 1] as readonly [number, number])[0] === at) continue;
    if (hits / (order.length - i) >= VERDICT_PRECISION) successFrom = at;
  }
  let failureTo = Number.NEGATIVE_INFINITY;
  let misses = 0;
  for (let i = 0; i < order.length; i++) {
    misses += 1 - (order[i] as readonly [number, number])[1];
    const at = (order[i] as readonly [number, number])[0];
    if (i < order.length - 1 && (order[i + 1] as readonly [number, number])[0] === at) continue;
    if (misses / (i + 1) >= VERDICT_PRECISION) failureTo = at;
  }
  // Overlapping thresholds (few samples, one probability for all): the likelier side wins.
  if (failureTo >= successFrom) {
    const rate = y.reduce((a, b) => a + b, 0) / y.length;
    if (rate >= 0.5) failureTo = Number.NEGATIVE_INFINITY;
    else successFrom = Number.POSITIVE_INFINITY;
  }
  return { successFrom, failureTo };
}

/** Brier score and expected calibration error of probabilities `p` against outcomes `y`. */
export function calibrationOf(
  p: readonly number[],
  y: readonly number[],
  baseRate: number,
): Calibration {
  const n = p.length;
  if (n === 0) return { samples: 0, brier: 0, ece: 0, baseRate };
  const brier = p.reduce((s, pi, i) => s + (pi - (y[i] as number)) ** 2, 0) / n;
  const bins = Array.from({ length: 10 }, () => ({ n: 0, p: 0, y: 0 }));
  p.forEach((pi, i) => {
    const bin = bins[Math.min(9, Math.floor(pi * 10))] as { n: number; p: number; y: number };
    bin.n++;
    bin.p += pi;
    bin.y += y[i] as number;
  });
  const ece = bins.reduce((s, b) => s + (b.n === 0 ? 0 : Math.abs(b.p - b.y)) / n, 0);
  return { samples: n, brier, ece, baseRate };
}

function sigmoid(z: number): number {
  return 1 / (1 + Math.exp(-z));
}

function dot(w: readonly number[], x: readonly number[]): number {
  let s = w[x.length] ?? 0;
  for (let i = 0; i < x.length; i++) s += (w[i] as number) * (x[i] as number);
  return s;
}

function standardisation(samples: readonly OutcomeSample[], d: number) {
  const mean = new Array<number>(d).fill(0);
  const scale = new Array<number>(d).fill(0);
  for (const s of samples)
    for (let i = 0; i < d; i++) mean[i] = (mean[i] as number) + (s.features[i] as number);
  for (let i = 0; i < d; i++) mean[i] = (mean[i] as number) / samples.length;
  for (const s of samples)
    for (let i = 0; i < d; i++)
      scale[i] = (scale[i] as number) + ((s.features[i] as number) - (mean[i] as number)) ** 2;
  for (let i = 0; i < d; i++) scale[i] = Math.sqrt((scale[i] as number) / samples.length) || 1;
  return { mean, scale };
}

function standardise(x: readonly number[], mean: readonly number[], scale: readonly number[]) {
  return x.map((v, i) => (v - (mean[i] as number)) / (scale[i] as number));
}

/**
 * L2-regularised logistic regression (bias last, not penalised) by Newton's method on the
 * small, standardised design: a few iterations converge.
 */
function logistic(rows: readonly number[][], labels: readonly number[], ridge: number): number[] {
  const d = (rows[0]?.length ?? 0) + 1;
  const w = new Array<number>(d).fill(0);
  for (let iteration = 0; iteration < 25; iteration++) {
    const grad = new Array<number>(d).fill(0);
    const hess = Array.from({ length: d }, () => new Array<number>(d).fill(0));
    rows.forEach((x, n) => {
      const xb = [...x, 1];
      const p = sigmoid(dot(w, x));
      const err = p - (labels[n] as number);
      const curvature = Math.max(p * (1 - p), 1e-6);
      for (let i = 0; i < d; i++) {
        grad[i] = (grad[i] as number) + err * (xb[i] as number);
        const row = hess[i] as number[];
        for (let j = 0; j < d; j++)
          row[j] = (row[j] as number) + curvature * (xb[i] as number) * (xb[j] as number);
      }
    });
    for (let i = 0; i < d - 1; i++) {
      grad[i] = (grad[i] as number) + ridge * rows.length * (w[i] as number);
      (hess[i] as number[])[i] = ((hess[i] as number[])[i] as number) + ridge * rows.length;
    }
    const step = solve(hess, grad);
    let change = 0;
    for (let i = 0; i < d; i++) {
      w[i] = (w[i] as number) - (step[i] as number);
      change = Math.max(change, Math.abs(step[i] as number));
    }
    if (change < 1e-6) break;
  }
  return w;
}

/** Platt's a and b: the 1-D logistic regression of the outcomes on the out-of-fold logits. */
function plattScaling(logits: readonly number[], labels: readonly number[]): [number, number] {
  const w = logistic(
    logits.map((z) => [z]),
    labels,
    1e-4,
  );
  return [w[0] as number, w[1] as number];
}
