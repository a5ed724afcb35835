import { describe, expect, it } from 'vitest';
import type { Observation } from '../../core/types.ts';
import type { Decision, FamilyFeatures } from './feature-set.ts';
import {
  GENERIC_ACTION_SCALARS,
  GENERIC_FEATURE_SIZES,
  GENERIC_STATE_SCALARS,
  genericFeatures,
} from './generic-features.ts';

const ticket =
  'Lena Quill here, from Durnford. What is the status of my order with the brass lamp?';
const tools = ['find_customer[<name>]', 'answer[<text>]'];
const reply = (value: unknown, actions: string[]): Observation => ({
  text: JSON.stringify(value),
  instruction: ticket,
  actions,
});
const found = reply(
  {
    customers: [
      { id: 'C-2108', name: 'Lena Quill', town: 'Port Renna' },
      { id: 'C-5795', name: 'Lena Quill', town: 'Durnford' },
    ],
  },
  ['find_customer[<name>]', 'get_customer[C-2108]', 'get_customer[C-5795]', 'answer[<text>]'],
);
const order = reply(
  { id: 'O-3971', status: 'pending', items: [{ product: 'brass lamp', qty: 1 }] },
  ['find_customer[<name>]', 'get_order[O-3971]', 'cancel_order[O-3971]', 'answer[<text>]'],
);
const features = genericFeatures();
const { actionBuckets, stateBuckets } = GENERIC_FEATURE_SIZES;

/** The scalars of each candidate of `decision`, by action. */
function scalars(decision: Decision): Map<string, Float32Array> {
  const candidates = features.candidates(decision);
  const { actions } = features.featurize(decision, candidates);
  const size = features.actionSize;
  return new Map(
    candidates.map((c, i) => [c, actions.slice(i * size + actionBuckets, (i + 1) * size)]),
  );
}

describe('generic features: template slots', () => {
  it('fills a slot with a name from the instruction and an answer with a value the episode showed', () => {
    const start = features.candidates({
      observation: reply({ ticket: 'open' }, tools),
      history: [],
    });
    expect(start).toContain('find_customer[Lena Quill]');
    const later = features.candidates({
      observation: order,
      history: ['find_customer[Lena Quill]', 'get_customer[C-5795]', 'get_order[O-3971]'],
      observations: [found, reply({ id: 'C-5795', orders: ['O-3971'] }, []), order],
    });
    expect(later).toContain('answer[pending]');
    expect(later).toContain('answer[C-5795]'); // an earlier result's value, for the policy to weigh
    expect(later).not.toContain('answer[<text>]');
  });

  it('tells the record that matches the instruction from its namesake', () => {
    const decision = {
      observation: found,
      history: ['find_customer[Lena Quill]'],
      observations: [found],
    };
    const rows = scalars(decision);
    const right = rows.get('get_customer[C-5795]') as Float32Array;
    const namesake = rows.get('get_customer[C-2108]') as Float32Array;
    // cover 9, gap to the best rival 10, is the best 11 (31–33: the same among the records
    // about the value); shown now 6; a list's first 23.
    expect(right[9]).toBeGreaterThan(namesake[9] as number);
    expect(right[11]).toBe(1);
    expect(namesake[11]).toBe(0);
    expect(namesake[10]).toBeLessThan(0);
    expect(right[33]).toBe(1);
    expect(namesake[32]).toBeLessThan(0);
    expect(right[6]).toBe(1);
    expect(namesake[23]).toBeGreaterThan(right[23] as number);
    // The name came from the instruction: 3 named there; the repeated lookup was taken 16.
    const lookup = rows.get('find_customer[Lena Quill]') as Float32Array;
    expect(lookup[3]).toBe(1);
    expect(lookup[16]).toBeGreaterThan(0);
    expect(right[16]).toBe(0);
  });

  it('relates an answer to the field it is read from and the question', () => {
    const rows = scalars({
      observation: order,
      history: ['find_customer[Lena Quill]', 'get_order[O-3971]'],
      observations: [found, order],
    });
    const status = rows.get('answer[pending]') as Float32Array;
    const id = rows.get('answer[O-3971]') as Float32Array;
    expect(status[2]).toBe(1); // fills a template
    expect(status[13]).toBe(1); // its field, `status`, is a word of the instruction
    expect(id[13]).toBe(0);
    expect(status[28]).toBe(1); // shown for the first time by the last result
    expect(id[25]).toBe(1); // id-shaped
  });

  it('knows a field already holds a value, and an action that changed nothing', () => {
    const form: Observation = {
      text: 'Find a stay\ntown: Marrowby\nnights: (not set)\nguests: (not set)\n[Search]',
      instruction: 'A room in Marrowby for 3 guests, 2 nights.',
      actions: [
        'set[town=Marrowby]',
        'set[nights=2]',
        'set[nights=3]',
        'click[Search]',
        'click[Back]',
      ],
    };
    const rows = scalars({
      observation: form,
      history: ['set[town=Marrowby]', 'click[Back]', 'click[Back]'],
      observations: [form, form, form],
    });
    expect(rows.get('set[town=Marrowby]')?.[29]).toBe(1);
    expect(rows.get('set[nights=2]')?.[29]).toBe(0);
    // The instruction names the field next to the value (14), or another field the page has (37).
    expect(rows.get('set[nights=2]')?.[14]).toBe(1);
    expect(rows.get('set[nights=2]')?.[37]).toBe(0);
    expect(rows.get('set[nights=3]')?.[14]).toBe(0);
    expect(rows.get('set[nights=3]')?.[37]).toBe(1);
    expect(rows.get('click[Back]')?.[19]).toBe(1); // taken before without effect
    expect(rows.get('click[Back]')?.[18]).toBe(1); // just taken
  });

  it('finds the cheapest untried option of the kind asked for, and remembers what one showed', () => {
    const instruction = 'I need the cheapest single room with garden access in Marrowby.';
    const results: Observation = {
      text: [
        'Stays in Marrowby: 4 available',
        '[R-35] Willow Lodge · double room · $100 total',
        '[R-18] Willow Lodge · single room · $150 total',
        '[R-21] Heron Court · single room · $172 total',
        '[R-40] Heron Court · single room · $180 total',
      ].join('\n'),
      instruction,
      actions: ['click[R-35]', 'click[R-18]', 'click[R-21]', 'click[R-40]'],
    };
    const room: Observation = {
      text: 'Willow Lodge — single room (R-18)\nSleeps 1 · Features: garden access\n[Back to results]',
      instruction,
      actions: ['click[Back to results]'],
    };
    const rows = scalars({
      observation: results,
      history: ['click[R-18]', 'click[Back to results]'],
      observations: [room, results],
    });
    // 39 the cheapest untried; 40 the cheapest untried of those that match best (single room).
    expect(rows.get('click[R-35]')?.[39]).toBe(1);
    expect(rows.get('click[R-35]')?.[40]).toBe(0);
    expect(rows.get('click[R-21]')?.[40]).toBe(1);
    expect(rows.get('click[R-18]')?.[40]).toBe(0); // opened already
    // 34–36: what the reply to opening it showed (garden access): only R-18 was opened.
    expect(rows.get('click[R-18]')?.[34]).toBeGreaterThan(0);
    expect(rows.get('click[R-18]')?.[36]).toBe(1);
    expect(rows.get('click[R-21]')?.[35]).toBeLessThan(0);
  });

  it('sees that a key fits a door the page describes', () => {
    const room: Observation = {
      text: 'You are in the nursery.\nExits: north through the birch door (pewter lock, locked); south through the red door (copper lock, locked).\nYou carry a pewter key.',
      instruction: 'Leave the goblet in the pantry.',
      actions: ['unlock birch door with pewter key', 'unlock red door with pewter key'],
    };
    const rows = scalars({ observation: room, history: [] });
    expect(rows.get('unlock birch door with pewter key')?.[15]).toBe(1);
    expect(rows.get('unlock red door with pewter key')?.[15]).toBe(0);
  });
});

describe('generic features: the whole observation', () => {
  it('hashes every line of the observation, not its first ones', () => {
    const page = (last: string): Decision => ({
      observation: {
        text: `You are in the nursery.\nExits: north.\nYou see a quill.\n${last}`,
        instruction: 'Leave the goblet in the pantry.',
        actions: ['go north', 'look'],
      },
      history: [],
    });
    const a = features.featurize(page('You carry nothing.'), ['look']).state;
    const b = features.featurize(page('You carry a goblet.'), ['look']).state;
    expect(Array.from(a.slice(0, stateBuckets))).not.toEqual(Array.from(b.slice(0, stateBuckets)));
    // …and how much of the instruction the observation shows (goblet): scalar 5.
    expect(b[stateBuckets + 5]).toBeGreaterThan(a[stateBuckets + 5] as number);
  });
});

describe('generic features: a family of its own', () => {
  it('appends a family’s block after the generic scalars, and its state block', () => {
    const marks: FamilyFeatures<number> = {
      name: 'marks',
      actionScalars: 2,
      stateScalars: 1,
      view: (decision) => decision.history.length,
      action(view, _decision, action, block) {
        block[0] = view;
        block[1] = action.length;
      },
      state(view, _decision, block) {
        block[0] = view + 10;
      },
    };
    const withFamily = genericFeatures({ families: [marks] });
    expect(withFamily.actionSize).toBe(actionBuckets + GENERIC_ACTION_SCALARS + 2);
    expect(withFamily.stateSize).toBe(stateBuckets + GENERIC_STATE_SCALARS + 1);
    const decision = { observation: found, history: ['find_customer[Lena Quill]'] };
    const { actions, state } = withFamily.featurize(decision, ['get_customer[C-5795]']);
    expect(Array.from(actions.slice(-2))).toEqual([1, 'get_customer[C-5795]'.length]);
    expect(state.at(-1)).toBe(11);
  });
});
