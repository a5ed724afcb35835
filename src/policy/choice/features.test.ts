import { describe, expect, it } from 'vitest';
import type { Decision } from './feature-set.ts';
import {
  ACTION_SCALARS,
  actionFeatures,
  DEFAULT_FEATURE_SIZES,
  decisionView,
  stateFeatures,
} from './features.ts';

const sizes = DEFAULT_FEATURE_SIZES;
const scalar = (decision: Decision, action: string, i: number) => {
  const view = decisionView(decision, decision.observation.actions ?? [action]);
  return actionFeatures(decision, action, sizes, view)[sizes.actionBuckets + i] as number;
};

const shopInstruction =
  'i need an everyday use and bpa free electric kettle in white color, and price lower than 80.00 dollars';
const results: Decision = {
  history: ['search[bpa free electric kettle]'],
  observation: {
    instruction: shopInstruction,
    text: [
      '[Back to Search]',
      'Page 1 (Total results: 50)',
      '[B0AAAAAAAA]',
      'Everyday Use BPA Free Electric Kettle, Black',
      '$53.95',
      '[B0BBBBBBBB]',
      'Glass Teapot with Infuser',
      '$99.00',
    ].join('\n'),
    actions: ['click[Back to Search]', 'click[B0AAAAAAAA]', 'click[B0BBBBBBBB]'],
  },
};
const item = (history: string[]): Decision => ({
  history: ['search[kettle]', 'click[B0AAAAAAAA]', ...history],
  observation: {
    instruction: shopInstruction,
    text: [
      '[Back to Search]',
      '[< Prev]',
      'color [black][white][glass]',
      'Everyday Use BPA Free Electric Kettle, Black',
      'Price: $53.95',
      '[Buy Now]',
    ].join('\n'),
    actions: ['click[< Prev]', 'click[black]', 'click[white]', 'click[glass]', 'click[Buy Now]'],
  },
});

describe('choice features: instruction × action', () => {
  it('scores a result against its rivals: coverage, word pairs, budget', () => {
    // [1] coverage, [2] within budget, [9] word pairs, [10] gap to the best rival, [11] is best
    expect(scalar(results, 'click[B0AAAAAAAA]', 11)).toBe(1);
    expect(scalar(results, 'click[B0BBBBBBBB]', 11)).toBe(0);
    expect(scalar(results, 'click[B0BBBBBBBB]', 10)).toBeLessThan(0);
    expect(scalar(results, 'click[B0AAAAAAAA]', 9)).toBeGreaterThan(
      scalar(results, 'click[B0BBBBBBBB]', 9),
    );
    expect(scalar(results, 'click[B0AAAAAAAA]', 2)).toBe(1);
    expect(scalar(results, 'click[B0BBBBBBBB]', 2)).toBe(-1);
  });

  it("gives a result its place in the search engine's order", () => {
    // [22] 1 − rank/10, [23] the first result
    expect(scalar(results, 'click[B0AAAAAAAA]', 22)).toBe(1);
    expect(scalar(results, 'click[B0AAAAAAAA]', 23)).toBe(1);
    expect(scalar(results, 'click[B0BBBBBBBB]', 22)).toBeCloseTo(0.9);
    expect(scalar(results, 'click[B0BBBBBBBB]', 23)).toBe(0);
    expect(scalar(results, 'click[Back to Search]', 22)).toBe(0);
  });

  it('knows the wanted option, what is chosen, and when Buy Now is due', () => {
    const before = item([]);
    expect(scalar(before, 'click[white]', 16)).toBe(1); // wanted value
    expect(scalar(before, 'click[black]', 16)).toBe(0);
    expect(scalar(before, 'click[black]', 19)).toBe(1); // another value of a wanted group
    expect(scalar(before, 'click[Buy Now]', 20)).toBe(0); // not ready: white still pending
    const after = item(['click[white]']);
    expect(scalar(after, 'click[white]', 17)).toBe(1); // already chosen
    expect(scalar(after, 'click[glass]', 18)).toBe(1); // its group has a choice
    expect(scalar(after, 'click[Buy Now]', 20)).toBe(1);
  });

  it('flags an item none of whose options the instruction asks for', () => {
    const wrong: Decision = {
      ...item([]),
      observation: {
        ...item([]).observation,
        text: item([]).observation.text.replace('[black][white][glass]', '[red][blue]'),
        actions: ['click[< Prev]', 'click[red]', 'click[blue]', 'click[Buy Now]'],
      },
    };
    expect(scalar(wrong, 'click[< Prev]', 31)).toBe(1);
    expect(scalar(wrong, 'click[Buy Now]', 30)).toBe(1);
    expect(scalar(item([]), 'click[< Prev]', 31)).toBe(0);
  });
});

describe('choice features: household memory', () => {
  const instruction = 'heat some egg and put it in garbagecan.';
  const decision = (history: string[], replies: string[], actions: string[]): Decision => ({
    history,
    observations: replies.map((text) => ({ text, instruction })),
    observation: { text: replies.at(-1) ?? '', instruction, actions },
  });

  it('prefers unvisited places and the place where a task object was seen', () => {
    const d = decision(
      ['go to fridge 1', 'open fridge 1', 'go to cabinet 1'],
      [
        'You arrive at fridge 1. The fridge 1 is closed.',
        'You open the fridge 1. The fridge 1 is open. In it, you see a egg 2, and a apple 1.',
        'You arrive at cabinet 1. On the cabinet 1, you see nothing.',
      ],
      ['go to fridge 1', 'go to cabinet 1', 'go to microwave 1', 'go to garbagecan 1'],
    );
    // [22] unvisited, [23] holds a task object, [24] the goal's receptacle, [25] here
    expect(scalar(d, 'go to microwave 1', 22)).toBe(1);
    expect(scalar(d, 'go to cabinet 1', 22)).toBe(0);
    expect(scalar(d, 'go to fridge 1', 23)).toBe(1);
    expect(scalar(d, 'go to cabinet 1', 23)).toBe(0);
    expect(scalar(d, 'go to garbagecan 1', 24)).toBe(1);
    expect(scalar(d, 'go to cabinet 1', 25)).toBe(1);
    const state = stateFeatures(d, sizes, decisionView(d, []));
    expect(state[sizes.stateBuckets + 7]).toBe(1); // a task object is located
  });

  it('treats before placing, and only the task object', () => {
    const holding = decision(
      ['take egg 2 from fridge 1', 'go to microwave 1'],
      [
        'You pick up the egg 2 from the fridge 1.',
        'You arrive at microwave 1. The microwave 1 is closed.',
      ],
      ['heat egg 2 with microwave 1', 'move egg 2 to microwave 1'],
    );
    expect(scalar(holding, 'heat egg 2 with microwave 1', 29)).toBe(1);
    expect(scalar(holding, 'move egg 2 to garbagecan 1', 28)).toBe(-1); // not heated yet
    const heated = decision(
      [...holding.history, 'heat egg 2 with microwave 1'],
      [
        ...(holding.observations ?? []).map((o) => o.text),
        'You heat the egg 2 using the microwave 1.',
      ],
      ['move egg 2 to garbagecan 1'],
    );
    expect(scalar(heated, 'heat egg 2 with microwave 1', 29)).toBe(-1); // done already
    expect(scalar(heated, 'move egg 2 to garbagecan 1', 28)).toBe(1);
    expect(scalar(heated, 'move egg 2 to garbagecan 1', 27)).toBe(1);
    expect(scalar(heated, 'take apple 1 from fridge 1', 26)).toBe(-1);
  });

  it('has as many scalars as it declares', () => {
    const f = actionFeatures(item([]), 'click[white]', sizes);
    expect(f.length).toBe(sizes.actionBuckets + ACTION_SCALARS);
  });
});

describe('page features: the numbers the demo tables were measured with', () => {
  it('stay the same to the bit on a shop page and a household reply', () => {
    const household: Decision = {
      history: ['go to fridge 1', 'open fridge 1'],
      observations: [
        'You arrive at fridge 1. The fridge 1 is closed.',
        'You open the fridge 1. The fridge 1 is open. In it, you see a egg 2, and a apple 1.',
      ].map((text) => ({ text, instruction: 'heat some egg and put it in garbagecan.' })),
      observation: {
        text: 'You open the fridge 1. The fridge 1 is open. In it, you see a egg 2, and a apple 1.',
        instruction: 'heat some egg and put it in garbagecan.',
        actions: ['take egg 2 from fridge 1', 'go to microwave 1', 'close fridge 1'],
      },
    };
    let checksum = 0x811c9dc5;
    for (const d of [item(['click[white]']), household]) {
      const actions = d.observation.actions ?? [];
      const view = decisionView(d, actions);
      const vectors = [
        ...actions.map((a) => actionFeatures(d, a, sizes, view)),
        stateFeatures(d, sizes, view),
      ];
      for (const v of vectors)
        for (const byte of new Uint8Array(v.buffer))
          checksum = Math.imul(checksum ^ byte, 0x01000193);
    }
    // Measured with the features before they moved behind the family interface.
    expect((checksum >>> 0).toString(16)).toBe('f7a87811');
  });
});
