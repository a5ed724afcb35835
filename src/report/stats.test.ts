import { describe, expect, it } from 'vitest';
import {
  acrossSeeds,
  formatRate,
  mcnemarExact,
  meanInterval,
  pairedAcrossSeeds,
  wilson,
} from './stats.ts';

describe('confidence intervals', () => {
  it('Wilson interval matches a textbook value and stays inside [0, 1]', () => {
    // 8 successes of 10 at z = 1.96: [0.4902, 0.9433] (Wilson, 1927; widely tabulated).
    const e = wilson(8, 10);
    expect(e.low).toBeCloseTo(0.4902, 3);
    expect(e.high).toBeCloseTo(0.9433, 3);
    expect(wilson(0, 20).low).toBe(0);
    expect(wilson(0, 20).high).toBeGreaterThan(0);
    expect(wilson(20, 20).high).toBe(1);
    expect(formatRate(wilson(1, 2))).toMatch(/^50\.0% \[/);
  });

  it('mean interval is ± 1.96 standard errors', () => {
    const e = meanInterval([1, 2, 3, 4]);
    const se = Math.sqrt(((1.5 ** 2 + 0.5 ** 2) * 2) / 3 / 4);
    expect(e.mean).toBe(2.5);
    expect(e.high - e.mean).toBeCloseTo(1.96 * se, 10);
  });
});

describe('interval across seeds', () => {
  it('uses Student t with n − 1 degrees of freedom and stays in [0, 1]', () => {
    const e = acrossSeeds([0.5, 0.6, 0.7]);
    expect(e.mean).toBeCloseTo(0.6, 10);
    // sd 0.1, t(2) = 4.303: half-width 0.1 × 4.303 / √3
    expect(e.high - e.mean).toBeCloseTo((0.1 * 4.303) / Math.sqrt(3), 6);
    expect(acrossSeeds([0.95, 1, 1]).high).toBe(1);
    expect(acrossSeeds([0.4])).toEqual({ mean: 0.4, low: 0.4, high: 0.4, n: 1 });
  });

  it('pairs two methods seed by seed: the t interval of the differences, not clipped', () => {
    // Differences −0.1, 0, +0.4: mean 0.1, sd √0.07, t(2) = 4.303.
    const e = pairedAcrossSeeds([0.2, 0.5, 0.9], [0.3, 0.5, 0.5]);
    expect(e.mean).toBeCloseTo(0.1, 10);
    expect(e.high - e.mean).toBeCloseTo((4.303 * Math.sqrt(0.07)) / Math.sqrt(3), 6);
    expect(e.low).toBeLessThan(0);
    // A shift shared by every seed has no spread: the interval is the shift alone.
    expect(pairedAcrossSeeds([0.3, 0.6], [0.1, 0.4]).low).toBeCloseTo(0.2, 10);
    expect(() => pairedAcrossSeeds([0.1], [0.1, 0.2])).toThrow(/seed by seed/);
  });
});

describe('McNemar exact test', () => {
  it('doubles the binomial tail of the smaller discordant count (values from exact sums)', () => {
    expect(mcnemarExact(14, 5)).toBeCloseTo(0.063568115234375, 12);
    expect(mcnemarExact(5, 14)).toBeCloseTo(0.063568115234375, 12);
    expect(mcnemarExact(10, 0)).toBeCloseTo(0.001953125, 12);
    expect(mcnemarExact(30, 12)).toBeCloseTo(0.007915897334896727, 12);
    // Large counts stay finite (log space): 380 discordant tasks.
    expect(mcnemarExact(200, 180)).toBeCloseTo(0.32972497019205166, 10);
  });

  it('is 1 for an even split or no discordant task', () => {
    expect(mcnemarExact(3, 3)).toBe(1);
    expect(mcnemarExact(0, 0)).toBe(1);
  });
});
