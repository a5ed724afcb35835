import { describe, expect, it } from 'vitest';
import type { Observation, Trajectory } from '../../core/types.ts';
import { type ResultRow, renderResults, renderSearch } from './grammar.ts';
import { WebShopKnowledge } from './knowledge.ts';

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

describe('WebShopKnowledge: what it learns for judging purchases', () => {
  it('measures how often a composed first page lists what the real one did, per place', () => {
    const knowledge = WebShopKnowledge.fromTrajectories([
      searched('granola', [
        row('B0AAAAAAAA', 'Honey Granola'),
        row('B0BBBBBBBB', 'Nut Granola'),
        row('B0EEEEEEEE', 'Oat Clusters'),
      ]),
      searched('coffee', [row('B0CCCCCCCC', 'Dark Coffee'), row('B0DDDDDDDD', 'Light Coffee')]),
      searched('granola bar', [row('B0GGGGGGGG', 'Granola Bar Box')]),
    ]);
    // Each query ranked as if never sent: `granola` gives the bar box (listed for `granola bar`),
    // then the two granolas; `coffee` its two coffees; `granola bar` the box, then the granolas.
    // One-word queries: place 1 ✗ ✓, place 2 ✓ ✓, place 3 ✓ — as (hits + 1) / (tries + 2).
    const oneWord = knowledge.listingPrecision('honey');
    expect(oneWord).toHaveLength(10);
    expect(oneWord.slice(0, 3)).toEqual([2 / 4, 3 / 4, 2 / 3]);
    // Two-word queries are judged by `granola bar` alone: place 1 ✓, places 2 and 3 ✗.
    expect(knowledge.listingPrecision('oat honey').slice(0, 3)).toEqual([2 / 3, 1 / 3, 1 / 3]);
    // No query of three words or more, and nothing ranked tenth: no evidence, a coin toss.
    expect(knowledge.listingPrecision('oat honey granola')[0]).toBe(0.5);
    expect(oneWord[9]).toBe(0.5);
  });

  it('learns filler words (in many instructions, in no product text) and type words', () => {
    const ask = (n: number) =>
      `search for a lightweight summer dress number ${n} that costs less than 40.00 dollars`;
    const episodes = [1, 2, 3].map((n) => ({
      ...searched('summer dress', [
        row('B0AAAAAAAA', 'Lightweight Summer Dress'),
        row('B0BBBBBBBB', 'Floral Summer Dress'),
        row('B0CCCCCCCC', 'Linen Summer Shirt'),
      ]),
      id: `t-${n}`,
      task: { id: `task-${n}`, env: 'webshop', instruction: ask(n), origin: 'seed' as const },
    }));
    const knowledge = WebShopKnowledge.fromTrajectories(episodes);
    const { filler } = knowledge.vocabulary();
    // In all three instructions and no title; `number` too. `dress` is in titles, 1–3 in one each.
    expect([...filler].sort()).toEqual(['costs', 'number', 'search']);
    // The two dresses and the shirt vote: `summer` and `dress` are in at least half their titles.
    expect(knowledge.typeWords(ask(1))).toEqual(['summer', 'dress']);
    expect(knowledge.typeShare(ask(1), 'Kitchora Auto Shut Off Coffee Maker')).toBe(0);
    expect(knowledge.typeShare(ask(1), 'Linen Summer Shirt')).toBe(0.5);
    // Nothing known matches: no type words, and no judgement of the kind.
    const hose = 'i want a garden hose, and price lower than 30.00 dollars';
    expect(knowledge.typeWords(hose)).toEqual([]);
    expect(knowledge.typeShare(hose, 'Floral Summer Dress')).toBeUndefined();
  });
});

describe('WebShopKnowledge.purchaseFeatures: words the buffer vouches for', () => {
  it('counts the words of a query the real engine listed the product first for as known', () => {
    const knowledge = WebShopKnowledge.fromTrajectories([
      searched('non gmo granola', [
        row('B0AAAAAAAA', 'Crunchy Granola'),
        row('B0BBBBBBBB', 'Granola Clusters'),
      ]),
    ]);
    const ask = 'i need non gmo granola, and price lower than 30.00 dollars';
    const known = (asin: string) =>
      knowledge.purchaseFeatures(ask, knowledge.products.get(asin) as never, [])[0];
    // First for `non gmo granola`: the engine matched `non gmo` in what its page does not show.
    expect(known('B0AAAAAAAA')).toBe(1);
    // Second: only its title's `granola` is known.
    expect(known('B0BBBBBBBB')).toBeCloseTo(1 / 3);
  });
});
