import { describe, expect, it } from 'vitest';
import { Rng } from './rng.ts';

describe('Rng', () => {
  it('gives the same stream for the same seed and a different one for another seed', () => {
    const draw = (seed: number | string) => {
      const rng = new Rng(seed);
      return Array.from({ length: 8 }, () => rng.uint32());
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw('webshop')).toEqual(draw('webshop'));
    expect(draw(42)).not.toEqual(draw(43));
  });

  it('forks streams that depend only on the seed and the label', () => {
    const parent = new Rng(7);
    const before = parent.fork('catalog').float();
    parent.float();
    parent.float();
    expect(parent.fork('catalog').float()).toBe(before);
    expect(parent.fork('goals').float()).not.toBe(before);
  });

  it('keeps draws in range and roughly uniform', () => {
    const rng = new Rng(1);
    const counts = [0, 0, 0, 0];
    for (let i = 0; i < 40_000; i++) {
      const x = rng.int(4);
      counts[x] = (counts[x] ?? 0) + 1;
      const f = rng.float();
      expect(f >= 0 && f < 1).toBe(true);
    }
    for (const c of counts) expect(Math.abs(c - 10_000)).toBeLessThan(400);
    expect(() => rng.int(0)).toThrow(RangeError);
  });

  it('samples without replacement and shuffles without losing elements', () => {
    const rng = new Rng(3);
    const items = [1, 2, 3, 4, 5, 6];
    expect(rng.shuffle(items).sort()).toEqual(items);
    const picked = rng.sample(items, 4);
    expect(new Set(picked).size).toBe(4);
    expect(rng.sample(items, 10)).toHaveLength(6);
  });

  it('draws weighted choices in proportion to their weights', () => {
    const rng = new Rng(5);
    let heavy = 0;
    for (let i = 0; i < 10_000; i++) if (rng.weighted(['a', 'b'], [9, 1]) === 'a') heavy++;
    expect(heavy / 10_000).toBeGreaterThan(0.87);
    expect(heavy / 10_000).toBeLessThan(0.93);
  });
});
