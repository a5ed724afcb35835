import { describe, expect, it } from 'vitest';
import { memoize } from './memo.ts';

describe('memoize', () => {
  it('answers a repeated key from memory, and forgets all when full', () => {
    let calls = 0;
    const length = memoize((s: string) => {
      calls++;
      return s.length === 0 ? undefined : s.length;
    }, 2);
    expect([length('ab'), length('ab'), length(''), length('')]).toEqual([
      2,
      2,
      undefined,
      undefined,
    ]);
    expect(calls).toBe(2);
    length('abc'); // full: forgets 'ab' and ''
    length('ab');
    expect(calls).toBe(4);
  });
});
