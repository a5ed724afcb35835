/**
 * A ridge regression from hand-made features to a reward in [0, 1], fit on the terminal real
 * transitions of the replay buffer. The LLM-free experience model scores purchases with it.
 */
export class RewardModel {
  private constructor(
    readonly weights: number[],
    /** Mean absolute error on the data it was fit on. */
    readonly trainMae: number,
    readonly samples: number,
  ) {}

  /** Fits on (features, reward) pairs with L2 penalty `ridge` (bias not penalised). */
  static fit(features: readonly number[][], rewards: readonly number[], ridge = 1e-2): RewardModel {
    const d = (features[0]?.length ?? 0) + 1;
    if (features.length === 0) return new RewardModel(new Array(d).fill(0), Number.NaN, 0);
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
    const model = new RewardModel(weights, 0, features.length);
    const mae =
      features.reduce((s, f, n) => s + Math.abs(model.predict(f) - (rewards[n] as number)), 0) /
      features.length;
    return new RewardModel(weights, mae, features.length);
  }

  predict(features: readonly number[]): number {
    const raw = features.reduce(
      (s, x, i) => s + x * (this.weights[i] as number),
      this.weights.at(-1) as number,
    );
    return Math.min(1, Math.max(0, raw));
  }
}

/** Solves a·x = b by Gaussian elimination with partial pivoting (small dense systems). */
function solve(a: number[][], b: number[]): number[] {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i] as number]);
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++)
      if (Math.abs(m[r]?.[col] as number) > Math.abs(m[pivot]?.[col] as number)) pivot = r;
    [m[col], m[pivot]] = [m[pivot] as number[], m[col] as number[]];
    const p = m[col]?.[col] as number;
    if (Math.abs(p) < 1e-12) continue;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const factor = (m[r]?.[col] as number) / p;
      for (let c = col; c <= n; c++)
        (m[r] as number[])[c] = (m[r]?.[c] as number) - factor * (m[col]?.[c] as number);
    }
  }
  return m.map((row, i) => {
    const p = row[i] as number;
    return Math.abs(p) < 1e-12 ? 0 : (row[n] as number) / p;
  });
}
