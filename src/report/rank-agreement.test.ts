import { describe, expect, it } from 'vitest';
import { kendallTau, type PolicyScores, rankAgreement } from './rank-agreement.ts';

describe('kendallTau', () => {
  it('counts concordant and discordant pairs (one swap in five: 9 − 1 of 10)', () => {
    expect(kendallTau([1, 2, 3, 4, 5], [1, 3, 2, 4, 5])).toBeCloseTo(0.8, 12);
    expect(kendallTau([1, 2, 3], [3, 2, 1])).toBe(-1);
  });

  it('is τ-b with ties: 4 concordant of 5 untied pairs on each side', () => {
    // τ-a would give 4/6 here; τ-b's denominator leaves the tied pairs out.
    expect(kendallTau([1, 1, 2, 3], [1, 2, 2, 3])).toBeCloseTo(4 / 5, 12);
    expect(kendallTau([0, 0, 1], [0, 1, 1])).toBeCloseTo(1 / Math.sqrt(2 * 2), 12);
  });

  it('is undefined when one side is all ties, and refuses lists of different lengths', () => {
    expect(kendallTau([1, 1, 1], [1, 2, 3])).toBeNaN();
    expect(() => kendallTau([1, 2], [1])).toThrow(/differ in length \(2 and 1\)/);
  });
});

/** `n` episodes of which the first `successes` succeeded. */
const episodes = (successes: number, n: number) =>
  Array.from({ length: n }, (_, i) => (i < successes ? 1 : 0));

describe('rankAgreement', () => {
  const separated: PolicyScores[] = [
    { policy: 'untrained', synthetic: episodes(5, 100), real: episodes(2, 100) },
    { policy: 'bc', synthetic: episodes(40, 100), real: episodes(35, 100) },
    { policy: 'grpo', synthetic: episodes(80, 100), real: episodes(70, 100) },
  ];

  it('gives τ = 1 with an interval of [1, 1] for well-separated policies ranked alike', () => {
    const agreement = rankAgreement(separated, { resamples: 500 });
    expect(agreement).toMatchObject({ tau: 1, low: 1, high: 1, policies: 3, defined: 500 });
  });

  it('gives a wide interval when the policies are too close to tell apart', () => {
    const close: PolicyScores[] = [
      { policy: 'a', synthetic: episodes(10, 20), real: episodes(11, 20) },
      { policy: 'b', synthetic: episodes(11, 20), real: episodes(10, 20) },
      { policy: 'c', synthetic: episodes(12, 20), real: episodes(12, 20) },
    ];
    const agreement = rankAgreement(close, { resamples: 1000 });
    expect(agreement.tau).toBeCloseTo(1 / 3, 12);
    expect(agreement.low).toBeLessThanOrEqual(-1 / 3);
    expect(agreement.high).toBe(1);
  });

  it('is reproducible from its seed', () => {
    const noisy = separated.map((s) => ({ ...s, real: episodes(50, 100) }));
    expect(rankAgreement(noisy, { seed: 3 })).toEqual(rankAgreement(noisy, { seed: 3 }));
  });

  it('refuses fewer than two policies and a policy with no episodes on a side', () => {
    expect(() => rankAgreement(separated.slice(0, 1))).toThrow(/at least 2 policies, got 1/);
    const missing = [...separated, { policy: 'dpo', synthetic: [1], real: [] }];
    expect(() => rankAgreement(missing)).toThrow(/policy dpo has no real episodes/);
  });
});
