import { describe, expect, it } from 'vitest';
import {
  advantageEstimator,
  type EpisodeRewards,
  explainedVariance,
  gae,
  grpo,
} from './advantages.ts';

const episode = (partial: Partial<EpisodeRewards>): EpisodeRewards => ({
  groupId: 'g',
  rewards: [],
  values: [],
  terminated: true,
  truncated: false,
  bootstrapValue: 0,
  ...partial,
});

describe('gae', () => {
  it('matches hand-computed values on a terminated episode', () => {
    // γ = 0.9, λ = 0.8; rewards [0, 0, 1]; values [0.5, 0.6, 0.7]; terminated, so V(s_3) = 0.
    // δ2 = 1 - 0.7 = 0.3;  δ1 = 0 + 0.9·0.7 - 0.6 = 0.03;  δ0 = 0 + 0.9·0.6 - 0.5 = 0.04
    // A2 = 0.3;  A1 = 0.03 + 0.72·0.3 = 0.246;  A0 = 0.04 + 0.72·0.246 = 0.21712
    const { advantages, returns } = gae(
      [episode({ rewards: [0, 0, 1], values: [0.5, 0.6, 0.7] })],
      {
        gamma: 0.9,
        lambda: 0.8,
      },
    );
    expect(advantages[0]?.[0]).toBeCloseTo(0.21712, 10);
    expect(advantages[0]?.[1]).toBeCloseTo(0.246, 10);
    expect(advantages[0]?.[2]).toBeCloseTo(0.3, 10);
    expect(returns[0]?.[0]).toBeCloseTo(0.71712, 10);
  });

  it('bootstraps a truncated episode from V(s_T) and a terminated one from 0', () => {
    // One step, reward 0, V(s0) = 0.2, V(s1) = 0.5, γ = 0.9: truncated δ = 0.45 - 0.2; terminated δ = -0.2.
    const base = { rewards: [0], values: [0.2], bootstrapValue: 0.5 };
    const truncated = gae([episode({ ...base, terminated: false, truncated: true })], {
      gamma: 0.9,
    });
    const terminated = gae([episode({ ...base, terminated: true, truncated: false })], {
      gamma: 0.9,
    });
    expect(truncated.advantages[0]?.[0]).toBeCloseTo(0.25, 10);
    expect(terminated.advantages[0]?.[0]).toBeCloseTo(-0.2, 10);
  });

  it('reduces to the TD error with λ = 0 and to the Monte Carlo return minus value with λ = 1', () => {
    const e = episode({ rewards: [1, 2], values: [0.5, 1] });
    expect(gae([e], { gamma: 0.5, lambda: 0 }).advantages[0]).toEqual([1 + 0.5 * 1 - 0.5, 2 - 1]);
    expect(gae([e], { gamma: 0.5, lambda: 1 }).advantages[0]).toEqual([1 + 0.5 * 2 - 0.5, 2 - 1]);
  });
});

describe('grpo', () => {
  it('centres and scales rewards within each group and broadcasts to every step', () => {
    const { advantages } = grpo([
      episode({ groupId: 'a', rewards: [0, 1] }),
      episode({ groupId: 'a', rewards: [0, 0, 0] }),
      episode({ groupId: 'b', rewards: [0.5] }),
      episode({ groupId: 'b', rewards: [1] }),
    ]);
    // Group a: outcomes 1 and 0, mean 0.5, std 0.5 → +1 and −1. Group b: 0.5 and 1, mean 0.75, std 0.25.
    expect(advantages[0]).toEqual([1, 1]);
    expect(advantages[1]).toEqual([-1, -1, -1]);
    expect(advantages[2]?.[0]).toBeCloseTo(-1, 10);
    expect(advantages[3]?.[0]).toBeCloseTo(1, 10);
  });

  it('gives zero advantage when all rewards of a group are equal', () => {
    const { advantages } = grpo([
      episode({ rewards: [1] }),
      episode({ rewards: [1] }),
      episode({ rewards: [1] }),
    ]);
    expect(advantages.flat()).toEqual([0, 0, 0]);
  });

  it('only centres without std normalisation', () => {
    const { advantages } = grpo([episode({ rewards: [2] }), episode({ rewards: [0] })], {
      normalizeStd: false,
    });
    expect(advantages.flat()).toEqual([1, -1]);
  });
});

describe('registry and diagnostics', () => {
  it('finds estimators by name and lists them for an unknown one', () => {
    expect(advantageEstimator('gae')).toBe(gae);
    expect(() => advantageEstimator('vtrace')).toThrow(
      /unknown advantage estimator "vtrace"; available: gae, grpo/,
    );
  });

  it('explained variance is 1 for perfect values and 0 for a constant guess at the mean', () => {
    expect(explainedVariance([1, 2, 3], [1, 2, 3])).toBeCloseTo(1, 10);
    expect(explainedVariance([2, 2, 2], [1, 2, 3])).toBeCloseTo(0, 10);
  });
});
