import { solve } from '../core/linear-solve.ts';

/**
 * Rewards from hand-made features, fit on the terminal real transitions of the replay buffer:
 * a logistic classifier says whether the episode fully succeeded (reward 1, as a real success
 * is), and a ridge regression gives the partial reward otherwise. The LLM-free experience models
 * score purchases (webshop) and answers (web) with it.
 */
export class RewardModel {
  private constructor(
    /** Ridge weights, bias last. */
    readonly weights: number[],
    /** Logistic weights (bias last) for P(reward = 1); undefined when no success was seen. */
    readonly successWeights: number[] | undefined,
    /** Mean absolute error on the data it was fit on. */
    readonly trainMae: number,
    readonly samples: number,
  ) {}

  /**
   * Fits on (features, reward) pairs with L2 penalty `ridge` (bias not penalised). `balanced`
   * weighs successes and failures equally in the classifier, so its threshold does not carry the
   * data's success rate: offline expert episodes mostly succeed, a learning policy's mostly fail.
   */
  static fit(
    features: readonly number[][],
    rewards: readonly number[],
    { ridge = 1e-2, balanced = false }: { ridge?: number; balanced?: boolean } = {},
  ): RewardModel {
    const d = (features[0]?.length ?? 0) + 1;
    if (features.length === 0)
      return new RewardModel(new Array(d).fill(0), undefined, Number.NaN, 0);
    const rows = features.map((f) => [...f, 1]);
    const a = Array.from({ length: d }, (_, i) =>
      Array.from(
        { length: d },
        (_, j) =>
          rows.reduce((s, r) => s + (r[i] as number) * (r[j] as number), 0) +
          (i === j && i < d - 1 ? ridge : 0),
      ),
    );
    const b = Array.from({ length: d }, (_, i) =>
      rows.reduce((s, r, n) => s + (r[i] as number) * (rewards[n] as number), 0),
    );
    const weights = solve(a, b);
    const successes = rewards.map((r) => (r >= 1 ? 1 : 0));
    const positives = successes.filter((y) => y === 1).length;
    const negatives = successes.length - positives;
    const weightOf = (y: number) =>
      balanced && positives > 0 && negatives > 0
        ? successes.length / (2 * (y === 1 ? positives : negatives))
        : 1;
    const successWeights = successes.includes(1)
      ? logistic(rows, successes, successes.map(weightOf), ridge)
      : undefined;
    const unscored = new RewardModel(weights, successWeights, 0, features.length);
    const mae =
      features.reduce((s, f, n) => s + Math.abs(unscored.predict(f) - (rewards[n] as number)), 0) /
      features.length;
    return new RewardModel(weights, successWeights, mae, features.length);
  }

  /** 1 when the classifier calls it a success, else the regression's partial reward below 1. */
  predict(features: readonly number[]): number {
    if (this.samples === 0) return 0;
    const x = [...features, 1];
    if (this.successWeights && dot(this.successWeights, x) >= 0) return 1;
    return this.partial(features);
  }

  /**
   * The classifier's probability of a full success (reward 1); undefined when it has nothing to
   * tell one by (no data, or no success seen).
   */
  successProbability(features: readonly number[]): number | undefined {
    if (this.samples === 0 || !this.successWeights) return undefined;
    return 1 / (1 + Math.exp(-dot(this.successWeights, [...features, 1])));
  }

  /**
   * The regression's reward alone, in [0, 1): what such a purchase earned on average, never a
   * full success. For callers that decide success by rules of their own.
   */
  partial(features: readonly number[]): number {
    if (this.samples === 0) return 0;
    return Math.min(0.99, Math.max(0, dot(this.weights, [...features, 1])));
  }
}

function dot(w: readonly number[], x: readonly number[]): number {
  return x.reduce((s, xi, i) => s + xi * (w[i] as number), 0);
}

/**
 * L2-regularised logistic regression by full-batch gradient descent (rows carry a bias column),
 * each row's loss weighted by `weights`.
 */
function logistic(
  rows: readonly number[][],
  labels: readonly number[],
  weights: readonly number[],
  ridge: number,
  steps = 500,
  rate = 1,
): number[] {
  const d = rows[0]?.length ?? 0;
  const w = new Array<number>(d).fill(0);
  for (let step = 0; step < steps; step++) {
    const grad = new Array<number>(d).fill(0);
    rows.forEach((x, n) => {
      const err = (weights[n] as number) * (1 / (1 + Math.exp(-dot(w, x))) - (labels[n] as number));
      for (let i = 0; i < d; i++) grad[i] = (grad[i] as number) + err * (x[i] as number);
    });
    for (let i = 0; i < d; i++) {
      const penalty = i < d - 1 ? ridge * (w[i] as number) : 0;
      w[i] = (w[i] as number) - rate * ((grad[i] as number) / rows.length + penalty);
    }
  }
  return w;
}
