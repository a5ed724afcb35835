import { describe, expect, it } from 'vitest';
import type { Observation, Step, Task, Trajectory } from '../../core/types.ts';
import {
  type ItemView,
  type ResultRow,
  renderDone,
  renderItem,
  renderResults,
  renderSearch,
} from './grammar.ts';
import { WebShopKnowledge } from './knowledge.ts';
import { WebShopExperienceModel } from './webshop-model.ts';

const dress: ResultRow = {
  asin: 'B0DRESS001',
  title: 'Juniper Lane Lightweight Summer Dress',
  price: '$25.99',
};
const pricey: ResultRow = {
  asin: 'B0DRESS002',
  title: 'Juniper Lane Floral Summer Dress',
  price: '$95.00',
};
const coffeeMaker: ResultRow = {
  asin: 'B0COFFEE01',
  title: 'Kitchora Auto Shut Off Coffee Maker',
  price: '$141.00',
};
const sizes = [{ name: 'size', values: ['small', 'medium'] }];

const task = (instruction: string): Task => ({
  id: `task-${instruction.length}`,
  env: 'webshop',
  instruction,
  origin: 'seed',
});

/** The one real episode the buffer holds: `summer dress` listed three products; the dress paid 1. */
function realEpisode(): Trajectory {
  const t = task(
    'i need a lightweight summer dress in small size, and price lower than 40.00 dollars',
  );
  const page = (view: { text: string; actions: string[] }): Observation => ({
    instruction: t.instruction,
    ...view,
  });
  const item: Omit<ItemView, 'asin'> = { ...dress, options: sizes };
  const step = (action: string, observation: Observation, reward = 0): Step => ({
    action,
    observation,
    reward,
    terminated: reward > 0,
    truncated: false,
  });
  return {
    id: 'real-1',
    env: 'webshop',
    task: t,
    initial: page(renderSearch(t.instruction)),
    steps: [
      step('search[summer dress]', page(renderResults(1, 3, [dress, pricey, coffeeMaker]))),
      step(`click[${dress.asin}]`, page(renderItem(item))),
      step('click[small]', page(renderItem(item, 'small'))),
      step('click[Buy Now]', page(renderDone(1)), 1),
    ],
    provenance: 'real-offline',
    policyId: 'expert',
    startedAt: '2026-01-01T00:00:00Z',
    endedAt: '2026-01-01T00:00:01Z',
  };
}

/** Plays `actions` in the model from the start of `t`; returns every prediction. */
async function play(model: WebShopExperienceModel, t: Task, actions: string[]) {
  const history: Step[] = [];
  let state = await model.initial(t);
  const out = [];
  for (const action of actions) {
    const predicted = await model.predict({ task: t, history, state, action, demonstrations: [] });
    history.push({
      action,
      observation: predicted.nextState,
      reward: predicted.reward,
      terminated: predicted.terminated,
      truncated: false,
    });
    state = predicted.nextState;
    out.push(predicted);
  }
  return out;
}

describe('WebShopExperienceModel purchases (a policy unlike the expert)', () => {
  const model = new WebShopExperienceModel(WebShopKnowledge.fromTrajectories([realEpisode()]));
  const dressTask = task(
    'i want a summer dress in medium size, and price lower than 40.00 dollars',
  );

  it('pays 0 for the wrong kind of product, bought from a page a real episode showed', async () => {
    const [, opened, bought] = await play(model, dressTask, [
      'search[summer dress]',
      `click[${coffeeMaker.asin}]`,
      'click[Buy Now]',
    ]);
    expect(bought?.terminated).toBe(true);
    expect(bought?.reward).toBe(0);
    expect(bought?.reasoning).toMatch(/wrong kind/);
    // Never opened for real: its options are unknown, so none is offered.
    expect(opened?.nextState.actions).not.toContain('click[small]');
    expect(opened?.reasoning).toMatch(/options are unknown/);
  });

  it('pays 0 for the right kind of product far over budget', async () => {
    const [, , bought] = await play(model, dressTask, [
      'search[summer dress]',
      `click[${pricey.asin}]`,
      'click[Buy Now]',
    ]);
    expect(bought?.reward).toBe(0);
    expect(bought?.reasoning).toMatch(/far over the budget/);
  });

  it('pays 1 for what the buffer shows to be a success, on pages a real episode showed', async () => {
    const [, , , bought] = await play(model, dressTask, [
      'search[summer dress]',
      `click[${dress.asin}]`,
      'click[medium]',
      'click[Buy Now]',
    ]);
    expect(bought?.reward).toBe(1);
  });

  it('pays under 1 when the product was clicked on a page composed for an unseen query', async () => {
    // One real query is too little evidence that a composed page lists what the real one would.
    const [results, , , bought] = await play(model, dressTask, [
      'search[dress medium]',
      `click[${dress.asin}]`,
      'click[medium]',
      'click[Buy Now]',
    ]);
    expect(results?.nextState.actions).toContain(`click[${dress.asin}]`);
    expect(bought?.reward).toBeGreaterThan(0);
    expect(bought?.reward).toBeLessThan(1);
    expect(bought?.reasoning).toMatch(/composed for a query no real episode sent/);
  });
});

describe('WebShopExperienceModel: pages composed for an unseen query', () => {
  /** A real episode that only searched `query` and saw `rows`. */
  const searchOnly = (query: string, rows: ResultRow[]): Trajectory => {
    const real = realEpisode();
    const first = real.steps[0] as Step;
    return {
      ...real,
      id: `real-${query}`,
      steps: [
        {
          ...first,
          action: `search[${query}]`,
          observation: { ...first.observation, ...renderResults(1, rows.length, rows) },
          truncated: true,
        },
      ],
    };
  };

  it('pays in full when the buffer shows such pages list what the real engine lists', async () => {
    // Three one-word queries whose real first result comes first again when ranked from the
    // buffer alone: a first place on a composed one-word page is listed for real with chance
    // (3 + 1) / (3 + 2) = 0.8, sure enough to pay.
    const model = new WebShopExperienceModel(
      WebShopKnowledge.fromTrajectories([
        realEpisode(),
        searchOnly('juniper', [dress, pricey]),
        searchOnly('coffee', [coffeeMaker]),
        searchOnly('floral', [pricey]),
      ]),
    );
    const dressTask = task(
      'i want a summer dress in medium size, and price lower than 40.00 dollars',
    );
    const [results, , , bought] = await play(model, dressTask, [
      'search[lightweight]',
      `click[${dress.asin}]`,
      'click[medium]',
      'click[Buy Now]',
    ]);
    expect(results?.nextState.actions?.[1]).toBe(`click[${dress.asin}]`);
    expect(bought?.reward).toBe(1);
    expect(bought?.reasoning).toMatch(/with chance 0\.80/);
  });
});

describe("WebShopExperienceModel's uncertainty", () => {
  const model = new WebShopExperienceModel(WebShopKnowledge.fromTrajectories([realEpisode()]));
  const dressTask = task(
    'i want a summer dress in medium size, and price lower than 40.00 dollars',
  );

  it('is 0 at every step of a real episode replayed, and on the shop’s rules', async () => {
    const real = realEpisode();
    const replayed = await play(
      model,
      real.task,
      real.steps.map((s) => s.action),
    );
    expect(replayed.map((p) => p.uncertainty)).toEqual([0, 0, 0, 0]);
    expect(replayed.at(-1)?.reward).toBe(1);
    const [, , back] = await play(model, dressTask, [
      'search[summer dress]',
      `click[${dress.asin}]`,
      'click[Back to Search]',
    ]);
    expect(back?.uncertainty).toBe(0);
  });

  it('is high on what it composed: an unseen query’s page, an item never opened, a borrowed text', async () => {
    const knowledge = WebShopKnowledge.fromTrajectories([realEpisode()]);
    const [results, opened, description] = await play(model, dressTask, [
      'search[dress medium]',
      `click[${pricey.asin}]`,
      'click[Description]',
    ]);
    // The share of its rows the real page would not list, by the chances measured for each
    // place on the buffer's own queries ranked as if unsent: with one real query, little is sure.
    const rows = results?.nextState.actions?.filter((a) => /click\[B0/.test(a)).length as number;
    const listed = knowledge.listingPrecision('dress medium').slice(0, rows);
    expect(results?.uncertainty).toBeCloseTo(1 - listed.reduce((a, b) => a + b, 0) / rows, 10);
    expect(results?.uncertainty).toBeGreaterThan(0.3);
    // The only opened item offered options: one never opened surely lacks some here.
    expect(opened?.uncertainty).toBe(1);
    expect(description?.reasoning).toMatch(/borrowed/);
    expect(description?.uncertainty).toBe(1);
  });

  it('at a purchase, is the chance that the way to it is not there for real', async () => {
    const [, , , bought] = await play(model, dressTask, [
      'search[dress medium]',
      `click[${dress.asin}]`,
      'click[medium]',
      'click[Buy Now]',
    ]);
    const chance = Number(/with chance ([\d.]+)/.exec(bought?.reasoning ?? '')?.[1]);
    expect(bought?.uncertainty).toBeCloseTo(1 - chance, 2);
  });
});
