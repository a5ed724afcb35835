import { describe, expect, it } from 'vitest';
import { ConfigError } from '../core/errors.ts';
import { Rng } from '../core/rng.ts';
import { checkMode, drawFromPool, generatedSlots, rankParents } from './selection.ts';

const round = [
  { taskId: 'always', variance: 0 },
  { taskId: 'sometimes', variance: 0.25 },
  { taskId: 'rarely', variance: 0.09 },
  { taskId: 'partial', variance: 0.16 },
  { taskId: 'never', variance: 0 },
];
const ids = round.map((s) => s.taskId);

describe('selection', () => {
  it('variance mode ranks by reward variance, highest first, and leaves out V = 0', () => {
    expect(rankParents('variance', round, ids, new Rng(1))).toEqual([
      'sometimes',
      'partial',
      'rarely',
    ]);
  });

  it('only tasks that may be parents are ranked', () => {
    expect(rankParents('variance', round, ['rarely', 'always'], new Rng(1))).toEqual(['rarely']);
  });

  it('breaks ties at random, reproducibly', () => {
    const tied = Array.from({ length: 8 }, (_, i) => ({ taskId: `t${i}`, variance: 0.25 }));
    const tiedIds = tied.map((s) => s.taskId);
    const orders = [1, 2, 3].map((seed) => rankParents('variance', tied, tiedIds, new Rng(seed)));
    expect(new Set(orders.map((o) => o.join()))).toHaveProperty('size', 3);
    expect(rankParents('variance', tied, tiedIds, new Rng(2))).toEqual(orders[1]);
  });

  it('random mode ranks every candidate in random order; off ranks none', () => {
    const ranked = rankParents('random', round, ids, new Rng(4));
    expect([...ranked].sort()).toEqual([...ids].sort());
    expect(ranked).toEqual(rankParents('random', [], ids, new Rng(4)));
    expect(rankParents('off', round, ids, new Rng(4))).toEqual([]);
  });

  it('generates round(λ · size) of a batch, none when off', () => {
    expect(generatedSlots('variance', 16, 0.25)).toBe(4);
    expect(generatedSlots('random', 10, 0.33)).toBe(3);
    expect(generatedSlots('variance', 8, 1)).toBe(8);
    expect(generatedSlots('off', 16, 0.5)).toBe(0);
    expect(() => generatedSlots('variance', 16, 1.5)).toThrow(ConfigError);
  });

  it('draws distinct tasks uniformly, leaving out the excluded ones', () => {
    const pool = Array.from({ length: 20 }, (_, i) => ({ id: `t${i}` }));
    const drawn = drawFromPool(pool, 10, new Set(['t0', 't1']), new Rng(5));
    expect(new Set(drawn.map((t) => t.id)).size).toBe(10);
    expect(drawn.map((t) => t.id)).not.toContain('t0');
    expect(drawFromPool(pool, 30, new Set(), new Rng(5))).toHaveLength(20);
  });

  it('names the valid modes when given another', () => {
    expect(checkMode('random')).toBe('random');
    expect(() => checkMode('greedy')).toThrow(/available: off, variance, random/);
  });
});
