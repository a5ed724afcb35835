import { describe, expect, it } from 'vitest';
import type { Observation } from '../../core/types.ts';
import { DecisionMemo, type Memoized } from './decision-memo.ts';
import type { Decision } from './feature-set.ts';

const page = (text: string, actions?: string[]): Observation => ({
  instruction: 'Open the post "Table saws"',
  text,
  ...(actions && { actions }),
});

/** A memo whose computations are counted; each answer is told apart by its state vector. */
function counted(limitBytes?: number) {
  const memo = new DecisionMemo(limitBytes);
  let computed = 0;
  const get = (decision: Decision): Memoized =>
    memo.get(decision, () => {
      computed++;
      return {
        candidates: ['click [1]'],
        features: { actions: new Float32Array(4), state: Float32Array.of(computed) },
      };
    });
  return { memo, get, computed: () => computed };
}

describe('DecisionMemo', () => {
  it('gives back what it computed for a decision of the same content, whatever the objects', () => {
    const { get, computed } = counted();
    const first = get({
      observation: page('home'),
      history: ['click [3]'],
      observations: [page('home')],
    });
    const again = get({
      observation: page('home'),
      history: ['click [3]'],
      observations: [page('home')],
    });
    expect(again).toBe(first);
    expect(computed()).toBe(1);
  });

  it('tells apart decisions that differ in any part', () => {
    const { get, computed } = counted();
    const base: Decision = {
      observation: page('home', ['click [<id>]']),
      history: [],
      observations: [],
    };
    const variants: Decision[] = [
      base,
      { ...base, observation: page('home') }, // no action list
      { ...base, observation: page('home', ['stop [<answer>]']) },
      { ...base, observation: { ...page('home'), instruction: 'Upvote it' } },
      { ...base, observation: page('home page') },
      { observation: base.observation, history: [] }, // a recorded decision without replies
      { ...base, history: ['click [3]'], observations: [page('post')] },
      { ...base, history: ['click [3]'], observations: [page('forum')] },
      { ...base, history: ['click [4]'], observations: [page('post')] },
      // A boundary imitated inside a text: two pages that join to the same characters.
      { ...base, history: ['a', 'b'], observations: [page('x|1>y'), page('z')] },
      { ...base, history: ['a|1>x', 'b'], observations: [page('y'), page('z')] },
    ];
    const states = variants.map((d) => get(d).features.state[0]);
    expect(new Set(states).size).toBe(variants.length);
    expect(computed()).toBe(variants.length);
    // Each is remembered on its own.
    for (const d of variants) get(d);
    expect(computed()).toBe(variants.length);
  });

  it('forgets everything once it holds more than its bound, and computes again', () => {
    const { memo, get, computed } = counted(200);
    get({ observation: page('a'), history: [] });
    expect(memo.size).toBe(1);
    get({ observation: page('b'.repeat(200)), history: [] }); // over the bound: all forgotten
    expect(memo.size).toBe(0);
    get({ observation: page('a'), history: [] });
    expect(computed()).toBe(3);
    expect(memo.size).toBe(1);
  });
});
