import { describe, expect, it } from 'vitest';
import type { Observation, Trajectory } from '../../core/types.ts';
import { type ResultRow, renderResults, renderSearch } from './grammar.ts';
import { purchaseFeatures, WebShopKnowledge } from './knowledge.ts';

const instruction = 'i want a non gmo granola in honey flavor, and price lower than 30.00 dollars';

/** One real episode that only searched `query` and saw `rows` on page 1. */
function searched(query: string, rows: ResultRow[]): Trajectory {
  const observation: Observation = { instruction, ...renderResults(1, rows.length, rows) };
  return {
    id: `t-${query}`,
    env: 'webshop',
    task: { id: `task-${query}`, env: 'webshop', instruction, origin: 'seed' },
    initial: { instruction, ...renderSearch(instruction) },
    steps: [
      { action: `search[${query}]`, observation, reward: 0, terminated: false, truncated: true },
    ],
    provenance: 'real-offline',
    policyId: 'expert',
    startedAt: '2026-01-01T00:00:00Z',
    endedAt: '2026-01-01T00:00:01Z',
  };
}

const row = (asin: string, title: string): ResultRow => ({ asin, title, price: '$9.99' });

describe('WebShopKnowledge.rank: an unseen query', () => {
  it('ranks by the queries that listed a product, not its title alone', () => {
    // The engine listed B0AAAAAAAA first for `non gmo granola`, though its title lacks `gmo`.
    const knowledge = WebShopKnowledge.fromTrajectories([
      searched('non gmo granola', [
        row('B0AAAAAAAA', 'Crunchy Granola'),
        row('B0BBBBBBBB', 'Granola Bar'),
      ]),
      searched('granola gift', [row('B0CCCCCCCC', 'Non GMO Granola Gift Box')]),
    ]);
    const ranked = knowledge.rank('non gmo granola honey').map((p) => p.asin);
    expect(ranked[0]).toBe('B0AAAAAAAA');
    // By title words alone B0CCCCCCCC (non, gmo, granola) would come first.
    expect(ranked.indexOf('B0CCCCCCCC')).toBeGreaterThan(0);
    expect(ranked).toHaveLength(3);
  });

  it('weighs a listing by its place: the first result counts more than the second', () => {
    const knowledge = WebShopKnowledge.fromTrajectories([
      searched('trail mix', [row('B0BBBBBBBB', 'Snack Pack'), row('B0AAAAAAAA', 'Snack Box')]),
    ]);
    expect(knowledge.rank('trail mix snack').map((p) => p.asin)).toEqual([
      'B0BBBBBBBB',
      'B0AAAAAAAA',
    ]);
  });
});

describe('purchaseFeatures', () => {
  const vocabulary = {
    values: new Set(['pack of 1', '4 ounce (pack of 1)', '16 ounce (pack of 1)', 'spicy chipotle']),
    groups: new Set(['size', 'flavor', 'color']),
  };
  const ask =
    'i want a vegan almond butter in spicy chipotle flavor and in 4 ounce (pack of 1) size, and price lower than 30.00 dollars';
  const butter = {
    asin: 'B0AAAAAAAA',
    title: 'Redfern Vegan Almond Butter',
    price: '$12.99',
    options: [
      { name: 'flavor', values: ['spicy chipotle', 'honey'] },
      { name: 'size', values: ['4 ounce (pack of 1)', '16 ounce (pack of 1)'] },
    ],
  };
  // [0] wanted words in the known text, [1] in the title, [2] named values selected,
  // [3] named values not offered, [4] an unnamed value selected, [5] within budget
  it('names the longest option values the instruction contains, and checks them against the choice', () => {
    const right = purchaseFeatures(
      ask,
      butter,
      ['spicy chipotle', '4 ounce (pack of 1)'],
      vocabulary,
    );
    expect(right).toEqual([1, 1, 1, 0, 0, 1]);
    const wrongSize = purchaseFeatures(
      ask,
      butter,
      ['spicy chipotle', '16 ounce (pack of 1)'],
      vocabulary,
    );
    expect(wrongSize[2]).toBe(0.5);
    expect(wrongSize[4]).toBe(1);
  });

  it('leaves option words and group names out of what the product must be, and sees what it lacks', () => {
    const plain = { ...butter, title: 'Redfern Almond Butter', options: [] };
    const [known, title, chosen, unoffered] = purchaseFeatures(ask, plain, [], vocabulary);
    // wanted: vegan, almond, butter (not spicy, chipotle, ounce, pack, flavor, size)
    expect(known).toBeCloseTo(2 / 3);
    expect(title).toBeCloseTo(2 / 3);
    expect(chosen).toBe(0);
    expect(unoffered).toBe(1);
  });
});
