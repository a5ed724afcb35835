import { describe, expect, it } from 'vitest';
import { addHashed, addHashedCrosses } from './hashing.ts';

describe('hashed features', () => {
  it('hashes cross tokens exactly as the tokens written out', () => {
    const lefts = ['reply', 'post', 'forum'];
    const rights = ['how', 'many', 'comments', 'how'];
    const extra = ['shape:number|how_many'];
    const written = [...lefts.flatMap((l) => rights.map((r) => `w:click|${l}|${r}`)), ...extra];
    const expected = new Float32Array(64);
    addHashed(expected, 0, 64, written, 0.5);
    const crossed = new Float32Array(64);
    addHashedCrosses(crossed, 0, 64, { prefix: 'w:click|', lefts, rights, extra }, 0.5);
    expect(Array.from(crossed)).toEqual(Array.from(expected));
    expect(expected.some((x) => x !== 0)).toBe(true);
  });

  it('adds nothing for no tokens, and scales a token list by 1/√n', () => {
    const none = new Float32Array(8);
    addHashedCrosses(none, 0, 8, { prefix: 'x:', lefts: [], rights: ['a'] }, 1);
    addHashed(none, 0, 8, [], 1);
    expect(Array.from(none)).toEqual(new Array(8).fill(0));
    const four = new Float32Array(1);
    addHashed(four, 0, 1, ['a', 'a', 'a', 'a'], 1);
    expect(Math.abs(four[0] as number)).toBeCloseTo(2);
  });
});
