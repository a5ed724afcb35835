/**
 * The arithmetic of `ExperiencePrediction.uncertainty` the experience models share: how unsure a
 * fitted probability is, and how unsure a prediction is that rests on several guesses at once.
 */

/**
 * The doubt of a success probability `p`: 0 when the model is sure either way (p = 0 or 1), 1 at
 * even odds (p = ½), linear between: 1 − |2p − 1|, twice the chance of the likelier outcome being
 * wrong.
 */
export function outcomeDoubt(p: number): number {
  return 1 - Math.abs(2 * p - 1);
}

/**
 * How unsure a prediction is that is wrong when any of its parts is (a page composed from another
 * episode and a reward from a fitted model), each part's uncertainty taken as its chance of being
 * wrong, independently: 1 − Π(1 − uᵢ).
 */
export function anyWrong(...uncertainties: readonly number[]): number {
  return 1 - uncertainties.reduce((sure, u) => sure * (1 - Math.min(1, Math.max(0, u))), 1);
}
