import { describe, expect, it } from 'vitest';
import type { Observation, Step, Trajectory } from '../../core/types.ts';
import { householdLens } from './household-lens.ts';
import {
  consistencyChecks,
  entityVocabulary,
  hallucinatedEntities,
  populationVariance,
  qualityProxies,
} from './proxies.ts';
import { webshopLens } from './webshop-lens.ts';

const obs = (text: string): Observation => ({ text, instruction: 'i' });

function episode(
  env: string,
  taskId: string,
  initial: string,
  steps: Array<[action: string, text: string, reward?: number]>,
): Trajectory {
  return {
    id: `${taskId}-${Math.random()}`,
    env,
    task: { id: taskId, env, instruction: 'i', origin: 'seed' },
    initial: obs(initial),
    steps: steps.map(
      ([action, text, reward = 0], i): Step => ({
        action,
        observation: obs(text),
        reward,
        terminated: i === steps.length - 1 && reward > 0,
        truncated: false,
      }),
    ),
    provenance: 'synthetic',
    policyId: 'test',
    startedAt: '',
    endedAt: '',
  };
}

const SEARCH = 'WebShop\nInstruction:\ni\n[Search]';
const results = (rows: Array<[string, string, string]>) =>
  [
    '[Back to Search]',
    `Page 1 (Total results: ${rows.length})`,
    ...rows.flatMap(([asin, title, price]) => [`[${asin}]`, title, price]),
  ].join('\n');
const item = (title: string, price: string, clicked?: string) =>
  [
    ...(clicked ? [`You have clicked ${clicked}.`] : []),
    '[Back to Search]',
    '[< Prev]',
    'size [s][m]',
    title,
    `Price: ${price}`,
    'Rating: N.A.',
    '[Description]',
    '[Features]',
    '[Buy Now]',
  ].join('\n');

const MUG: [string, string, string] = ['B0MUG00001', 'Blue Ceramic Mug', '$9.99'];
const PAN: [string, string, string] = ['B0PAN00002', 'Cast Iron Pan', '$29.00'];
const FAKE: [string, string, string] = ['B0FAKE0003', 'Invented Gadget', '$5.00'];

describe('webshop proxies', () => {
  const buffer = [
    episode('webshop', 'seen', SEARCH, [
      ['search[mug]', results([MUG, PAN])],
      ['click[B0MUG00001]', item(MUG[1], MUG[2])],
    ]),
  ];
  const vocabulary = entityVocabulary(buffer, webshopLens);

  it('counts a product id and title that neither the buffer nor the episode showed before', () => {
    const synthetic = episode('webshop', 't', SEARCH, [
      ['search[mug]', results([MUG, FAKE])],
      ['click[B0FAKE0003]', item(FAKE[1], FAKE[2])],
    ]);
    const h = hallucinatedEntities(synthetic, webshopLens, vocabulary);
    expect(h.hallucinated).toEqual(['id:B0FAKE0003', 'title:Invented Gadget']);
    // The item page repeats the invented title: counted once, at its first appearance.
    expect(h.entities).toHaveLength(4);
  });

  it('finds nothing invented in an episode of buffer products', () => {
    const synthetic = episode('webshop', 't', SEARCH, [['search[pan]', results([PAN, MUG])]]);
    expect(hallucinatedEntities(synthetic, webshopLens, vocabulary).hallucinated).toEqual([]);
  });

  it('a results page revisited unchanged is consistent; one showing other rows is not', () => {
    const same = episode('webshop', 't', SEARCH, [
      ['search[mug]', results([MUG, PAN])],
      ['click[B0MUG00001]', item(MUG[1], MUG[2])],
      ['click[s]', item(MUG[1], MUG[2], 's')],
      ['click[< Prev]', results([MUG, PAN])],
    ]);
    // The item page's title and price against its row (2), the page after the option click (3),
    // the results page again with each row's title and price (5).
    expect(consistencyChecks(same, webshopLens)).toEqual({ checks: 10, consistent: 10 });
    const changed = episode('webshop', 't', SEARCH, [
      ['search[mug]', results([MUG, PAN])],
      ['click[Back to Search]', SEARCH],
      ['search[mug]', results([PAN, MUG])],
    ]);
    const c = consistencyChecks(changed, webshopLens);
    expect(c.checks).toBe(5);
    expect(c.consistent).toBe(4); // the rows' titles and prices agree; the page's order does not
  });

  it("an item page whose title differs from its result row's is inconsistent", () => {
    const renamed = episode('webshop', 't', SEARCH, [
      ['search[mug]', results([MUG])],
      ['click[B0MUG00001]', item('Red Ceramic Mug', MUG[2])],
    ]);
    expect(consistencyChecks(renamed, webshopLens)).toEqual({ checks: 2, consistent: 1 });
  });
});

describe('household proxies', () => {
  const START =
    'You are in the middle of a room. Looking quickly around you, you see a cabinet 1, and a countertop 1.\n\nYour task is to: put a mug in countertop.';

  it('a receptacle revisited with nothing done to it must show the same contents', () => {
    const steady = episode('household', 't', START, [
      ['go to cabinet 1', 'You arrive at cabinet 1. The cabinet 1 is closed.'],
      ['open cabinet 1', 'You open the cabinet 1. The cabinet 1 is open. In it, you see a mug 1.'],
      ['go to countertop 1', 'You arrive at countertop 1. On the countertop 1, you see nothing.'],
      [
        'go to cabinet 1',
        'You arrive at cabinet 1. The cabinet 1 is open. In it, you see a mug 1.',
      ],
    ]);
    // Opening changes the cabinet (no check); the second arrival is checked against the opening,
    // and the mug's place with it.
    expect(consistencyChecks(steady, householdLens)).toEqual({ checks: 2, consistent: 2 });
    const moved = episode('household', 't', START, [
      [
        'go to cabinet 1',
        'You arrive at cabinet 1. The cabinet 1 is open. In it, you see a mug 1.',
      ],
      ['go to countertop 1', 'You arrive at countertop 1. On the countertop 1, you see nothing.'],
      [
        'go to cabinet 1',
        'You arrive at cabinet 1. The cabinet 1 is open. In it, you see a cup 1.',
      ],
    ]);
    expect(consistencyChecks(moved, householdLens)).toEqual({ checks: 1, consistent: 0 });
  });

  it('an action on the receptacle in between leaves nothing to check', () => {
    const taken = episode('household', 't', START, [
      [
        'go to cabinet 1',
        'You arrive at cabinet 1. The cabinet 1 is open. In it, you see a mug 1.',
      ],
      ['take mug 1 from cabinet 1', 'You pick up the mug 1 from the cabinet 1.'],
      ['go to countertop 1', 'You arrive at countertop 1. On the countertop 1, you see nothing.'],
      [
        'go to cabinet 1',
        'You arrive at cabinet 1. The cabinet 1 is open. In it, you see nothing.',
      ],
    ]);
    expect(consistencyChecks(taken, householdLens)).toEqual({ checks: 0, consistent: 0 });
  });

  it('one object in two places at once is inconsistent, unless it was taken and moved', () => {
    const twice = episode('household', 't', START, [
      [
        'go to cabinet 1',
        'You arrive at cabinet 1. The cabinet 1 is open. In it, you see a candle 1.',
      ],
      [
        'go to countertop 1',
        'You arrive at countertop 1. On the countertop 1, you see a candle 1.',
      ],
    ]);
    expect(consistencyChecks(twice, householdLens)).toEqual({ checks: 1, consistent: 0 });
    const moved = episode('household', 't', START, [
      [
        'go to cabinet 1',
        'You arrive at cabinet 1. The cabinet 1 is open. In it, you see a candle 1.',
      ],
      ['take candle 1 from cabinet 1', 'You pick up the candle 1 from the cabinet 1.'],
      ['go to countertop 1', 'You arrive at countertop 1. On the countertop 1, you see nothing.'],
      ['move candle 1 to countertop 1', 'You move the candle 1 to the countertop 1.'],
      ['examine countertop 1', 'On the countertop 1, you see a candle 1.'],
    ]);
    // The move changed the countertop and the candle's place: nothing left to check.
    expect(consistencyChecks(moved, householdLens)).toEqual({ checks: 0, consistent: 0 });
  });

  it('counts an object name the buffer never showed', () => {
    const buffer = [
      episode('household', 'b', START, [
        [
          'go to cabinet 1',
          'You arrive at cabinet 1. The cabinet 1 is open. In it, you see a mug 1.',
        ],
      ]),
    ];
    const synthetic = episode('household', 't', START, [
      [
        'go to cabinet 1',
        'You arrive at cabinet 1. The cabinet 1 is open. In it, you see a unicorn 3.',
      ],
    ]);
    const h = hallucinatedEntities(
      synthetic,
      householdLens,
      entityVocabulary(buffer, householdLens),
    );
    expect(h.hallucinated).toEqual(['unicorn 3']);
  });
});

describe('group proxies', () => {
  const a = (reward: number, text = 'You arrive at cabinet 1. The cabinet 1 is closed.') =>
    episode('household', 'g', 'start', [['go to cabinet 1', text, reward]]);

  it('reward variance and informative groups: mixed outcomes carry a signal, equal ones none', () => {
    expect(populationVariance([1, 0, 1, 0])).toBeCloseTo(0.25);
    const mixed = qualityProxies([[a(1), a(0), a(1), a(0)]], householdLens, new Set());
    expect(mixed.rewardVariance.mean).toBeCloseTo(0.25);
    expect(mixed.informativeGroups.mean).toBe(1);
    const flat = qualityProxies([[a(1), a(1), a(1), a(1)]], householdLens, new Set());
    expect(flat.rewardVariance.mean).toBe(0);
    expect(flat.informativeGroups.mean).toBe(0);
  });

  it('diversity: identical episodes are one distinct episode; different pages count apart', () => {
    const same = qualityProxies([[a(0), a(0), a(0), a(0)]], householdLens, new Set());
    expect(same.distinctTrajectories.mean).toBe(0.25);
    expect(same.distinctStates.mean).toBe(0.25);
    const varied = qualityProxies(
      [[a(0, 'x 1'), a(0, 'x 2'), a(0, 'x 3'), a(0, 'x 4')]],
      householdLens,
      new Set(),
    );
    expect(varied.distinctTrajectories.mean).toBe(1);
    expect(varied.distinctStates.mean).toBe(1);
  });
});
