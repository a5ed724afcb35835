import { describe, expect, it } from 'vitest';
import { earlierOf, pageKindOf, shapeOf } from './generic-view.ts';

describe('generic view', () => {
  it('names shapes, not values, so ids of other episodes look alike', () => {
    expect(shapeOf('O-2217')).toBe(shapeOf('O-9120'));
    expect(shapeOf('May 7')).toBe('Aa 9');
    expect(shapeOf('157.85')).toBe('9.9');
  });

  it("names an observation's kind by a JSON result's keys or a page's first line", () => {
    expect(pageKindOf('{"status":"pending","id":"O-1"}')).toBe('json:id|status');
    expect(pageKindOf('[1, 2]')).toBe('json:list');
    expect(pageKindOf('Stays in Marrowby, May 7: 7 available\n[R-1]')).toBe(
      'stays_in_marrowby_may',
    );
  });

  it('takes the last reply for the current observation, not an earlier one', () => {
    const page = (text: string) => ({ text, instruction: '' });
    const [a, b] = [page('a'), page('b')];
    expect(earlierOf(b, [a, b])).toEqual([a]);
    // A decision whose observation is not the last reply (a recorded one) keeps every reply.
    expect(earlierOf(page('c'), [a, b])).toEqual([a, b]);
  });
});
