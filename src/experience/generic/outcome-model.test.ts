import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { isSuccess } from '../../core/types.ts';
import { EpisodeView } from './episode.ts';
import { GenericKnowledge } from './knowledge.ts';
import { outcomeFeatures } from './outcome-features.ts';
import { calibrationOf, OutcomeModel, type OutcomeSample, verdictsOf } from './outcome-model.ts';
import { itemDeskEpisodes } from './testing/item-desk.ts';

/** Episodes of a tiny env: one feature x ∈ [0, 1], and success with probability x². */
function tinyEnv(n: number, seed: number): OutcomeSample[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => {
    const x = rng.float();
    return { features: [x, rng.float()], success: rng.float() < x * x };
  });
}

describe('OutcomeModel', () => {
  it('gives probabilities that match the success rates of episodes it has not seen', () => {
    const model = OutcomeModel.fit(tinyEnv(600, 1));
    const heldOut = tinyEnv(3000, 2);
    const p = heldOut.map((s) => model.probability(s.features));
    const y = heldOut.map((s): number => (s.success ? 1 : 0));
    const base = y.reduce((a, b) => a + b, 0) / y.length;
    const held = calibrationOf(p, y, base);
    expect(held.ece).toBeLessThan(0.06);
    // Better than always guessing the base rate, whose Brier score is base · (1 − base).
    expect(held.brier).toBeLessThan(base * (1 - base) - 0.03);
    // The model's own out-of-fold estimate says the same.
    expect(model.calibration.samples).toBe(600);
    expect(model.calibration.ece).toBeLessThan(0.08);
    // Low x rarely succeeds, high x mostly does.
    expect(model.probability([0.1, 0.5])).toBeLessThan(0.15);
    expect(model.probability([0.95, 0.5])).toBeGreaterThan(0.6);
  });

  it('predicts the base rate when only one outcome was seen', () => {
    const model = OutcomeModel.fit(
      Array.from({ length: 10 }, (_, i) => ({ features: [i], success: true })),
    );
    expect(model.probability([3])).toBe(1);
    expect(OutcomeModel.fit([]).probability([1])).toBe(0);
  });
});

describe('OutcomeModel verdicts', () => {
  it('calls a success only where ≥ 90% of held-out endings succeeded, a failure where as many failed', () => {
    const p = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95];
    const y = [0, 0, 0, 0, 1, 0, 1, 1, 1, 1];
    // From the top: 0.95 … 0.7 all succeeded (4 of 4); with 0.6, 4 of 5 (80%): not enough.
    // From the bottom: 0.1 … 0.4 all failed; with 0.5, 4 of 5 failed.
    expect(verdictsOf(p, y)).toEqual({ successFrom: 0.7, failureTo: 0.4 });
  });

  it('judges ties together, and leaves everything unjudged with no threshold that holds', () => {
    // Three endings at 0.8, one of them a failure: 2 of 3 is not 90%, so 0.8 is no success.
    expect(verdictsOf([0.8, 0.8, 0.8, 0.9], [1, 0, 1, 1]).successFrom).toBe(0.9);
    const even = verdictsOf([0.5, 0.5, 0.5, 0.5], [1, 0, 1, 0]);
    expect(even).toEqual({
      successFrom: Number.POSITIVE_INFINITY,
      failureTo: Number.NEGATIVE_INFINITY,
    });
    expect(verdictsOf([], [])).toEqual(even);
  });

  it('scores an ending by its probability alone: never a draw, the middle unjudged', () => {
    const model = OutcomeModel.fit(tinyEnv(600, 1));
    const { successFrom, failureTo } = model.verdicts;
    expect(failureTo).toBeLessThan(successFrom);
    expect(successFrom).toBeLessThanOrEqual(1);
    expect(model.verdict(successFrom)).toBe('success');
    expect(model.verdict(failureTo)).toBe('failure');
    expect(model.verdict((successFrom + failureTo) / 2)).toBe('unjudged');
    // On episodes it has not seen, what it calls a success mostly is one.
    const called = tinyEnv(3000, 2).filter(
      (s) => model.verdict(model.probability(s.features)) === 'success',
    );
    expect(called.length).toBeGreaterThan(100);
    expect(called.filter((s) => s.success).length / called.length).toBeGreaterThan(0.85);
  });

  it('with one outcome only, calls every ending that outcome', () => {
    const all = OutcomeModel.fit(
      Array.from({ length: 10 }, (_, i) => ({ features: [i], success: true })),
    );
    expect(all.verdict(all.probability([3]))).toBe('success');
    const none = OutcomeModel.fit(
      Array.from({ length: 10 }, (_, i) => ({ features: [i], success: false })),
    );
    expect(none.verdict(none.probability([3]))).toBe('failure');
  });
});

describe("the generic model's outcome model on a tiny env", () => {
  it('is calibrated on held-out real episodes and scores successes above failures', () => {
    const knowledge = GenericKnowledge.fromTrajectories(itemDeskEpisodes(0, 300, 0.3));
    const { calibration } = knowledge.outcome;
    expect(calibration.samples).toBe(300);
    expect(calibration.baseRate).toBeGreaterThan(0.3);
    expect(calibration.baseRate).toBeLessThan(0.95);
    expect(calibration.brier).toBeLessThan(calibration.baseRate * (1 - calibration.baseRate));
    expect(calibration.ece).toBeLessThan(0.1);
    // Episodes it has not seen: their endings scored from what they saw and did.
    const scored = itemDeskEpisodes(5000, 200, 0.3).map((episode) => {
      const view = EpisodeView.ofTrajectory(episode);
      const now = episode.steps.length - 1;
      const features = outcomeFeatures(
        view,
        now,
        view.actions[now] as string,
        view.texts[now + 1] as string,
        knowledge.grammar,
        knowledge.taskWords,
        knowledge.successProfiles(episode.task.instruction),
      );
      return { p: knowledge.outcome.probability(features), success: isSuccess(episode) };
    });
    const mean = (rows: typeof scored) => rows.reduce((s, r) => s + r.p, 0) / rows.length;
    const successes = scored.filter((r) => r.success);
    const failures = scored.filter((r) => !r.success);
    expect(failures.length).toBeGreaterThan(10);
    expect(mean(successes) - mean(failures)).toBeGreaterThan(0.3);
  });
});
