import { describe, expect, it } from 'vitest';
import { solve } from './linear-solve.ts';

describe('solve', () => {
  it('solves a system that needs a row swap (zero first pivot)', () => {
    // 0x + 2y + z = 7; x + y + z = 6; 2x + y - z = 1  →  x = 1, y = 2, z = 3
    const x = solve(
      [
        [0, 2, 1],
        [1, 1, 1],
        [2, 1, -1],
      ],
      [7, 6, 1],
    );
    expect(x.map((v) => Number(v.toFixed(9)))).toEqual([1, 2, 3]);
  });

  it('gives 0 for an unknown of a singular direction instead of an infinity', () => {
    const x = solve(
      [
        [1, 0],
        [0, 0],
      ],
      [4, 0],
    );
    expect(x).toEqual([4, 0]);
  });
});
