import type { Tensor, Variable } from '../core/tf.ts';

/**
 * Early stopping on a validation split, shared by behaviour cloning and DPO: runs `epoch(n)`
 * (one training pass, n from 1, returning its scores) until `patience` epochs pass without a
 * lower held-out `loss(score)`, or `maxEpochs`; `variables` end with the best epoch's values.
 * Returns the best epoch's scores and every epoch's.
 */
export function trainWithEarlyStopping<S extends { epoch: number }>(
  variables: readonly Variable[],
  { maxEpochs, patience }: { maxEpochs: number; patience: number },
  epoch: (n: number) => S,
  loss: (score: S) => number,
): { best: S; curve: S[] } {
  if (!(maxEpochs >= 1))
    throw new RangeError(`early stopping needs maxEpochs ≥ 1, got ${maxEpochs}.`);
  const curve: S[] = [];
  let best: S | undefined;
  let bestWeights: Tensor[] = [];
  try {
    for (let n = 1; n <= maxEpochs; n++) {
      const score = epoch(n);
      curve.push(score);
      if (!best || loss(score) < loss(best)) {
        best = score;
        for (const w of bestWeights) w.dispose();
        bestWeights = variables.map((v) => v.clone());
      } else if (n - best.epoch >= patience) break;
    }
    variables.forEach((v, i) => {
      v.assign(bestWeights[i] as Tensor);
    });
  } finally {
    for (const w of bestWeights) w.dispose();
  }
  return { best: best as S, curve };
}
