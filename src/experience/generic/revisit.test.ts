import { describe, expect, it } from 'vitest';
import type { Step, Task, Trajectory } from '../../core/types.ts';
import { EpisodeView } from './episode.ts';
import { GenericExperienceModel } from './generic-model.ts';
import { GenericKnowledge } from './knowledge.ts';
import { backTo, countReturn, leadsBack, namedEarlierState, type ReturnCount } from './revisit.ts';

const page = (place: string, exits: string, carry = 'nothing') =>
  `You are in the ${place}.\nExits: ${exits}.\nYou carry ${carry}.`;

// hall —south→ den —east→ attic; the episode stands in the attic, whose exits name the den.
const walk = new EpisodeView(
  'Bring the lamp to the hall.',
  [
    page('hall', 'south to somewhere unexplored'),
    page('den', 'north to the hall; east to somewhere unexplored'),
    page('attic', 'west to the den', 'a lamp'),
  ],
  ['go south', 'go east'],
  [false, false],
);
const changesPlace = (key: string) => key === 'you are' || key === 'exits :';

describe('going back to a state the episode saw', () => {
  it('finds the latest earlier state the clause of the action names', () => {
    expect(namedEarlierState(walk, 2, ['west'], changesPlace)).toEqual({ at: 1, key: 'you are' });
    // From the den, north names the hall (state 0); south names nothing the episode saw.
    expect(namedEarlierState(walk, 1, ['north'], changesPlace)).toEqual({
      at: 0,
      key: 'you are',
    });
    expect(namedEarlierState(walk, 1, ['east'], changesPlace)).toBeUndefined();
    // Lines of a key the step leaves as they are name nothing.
    expect(namedEarlierState(walk, 2, ['west'], () => false)).toBeUndefined();
  });

  it('takes the earlier state’s changed lines and keeps what the step leaves', () => {
    const composed = `You go west.\n${page('cellar', 'up to the roof', 'a lamp')}`;
    expect(backTo(composed, walk.texts[1] as string, changesPlace)).toBe(
      `You go west.\n${page('den', 'north to the hall; east to somewhere unexplored', 'a lamp')}`,
    );
  });

  it('puts back, in its place, a line of a key it restores that the composed page lost', () => {
    const state = walk.texts[2] as string;
    const carry = (key: string) => key.startsWith('you carry');
    // The composition lost what one carries: the state's line comes back where it stood.
    const lost = 'You go up.\nYou are in the loft.\nExits: down to the attic.';
    expect(backTo(lost, state, carry, carry)).toBe(`${lost}\nYou carry a lamp.`);
    const first = 'You carry nothing.\nYou are in the hall.';
    expect(backTo('You are in the loft.', first, carry, carry)).toBe(
      'You carry nothing.\nYou are in the loft.',
    );
    // Without `restore`, or with the line there, nothing is added.
    expect(backTo(lost, state, carry)).toBe(lost);
    const kept = `${lost}\nYou carry a map.`;
    expect(backTo(kept, state, carry, carry)).toBe(`${lost}\nYou carry a lamp.`);
  });

  it('counts whether real steps that named an earlier state led back to it', () => {
    const back = new EpisodeView(
      walk.instruction,
      [...walk.texts, page('den', 'north to the hall; east to the attic', 'a lamp')],
      [...walk.actions, 'go west'],
      [false, false, false],
    );
    const elsewhere = new EpisodeView(
      walk.instruction,
      [...walk.texts, page('pantry', 'east to the attic', 'a lamp')],
      [...walk.actions, 'go west'],
      [false, false, false],
    );
    const count: ReturnCount = { named: 0, back: 0 };
    for (let i = 0; i < 3; i++) countReturn(count, back, 2, ['west'], changesPlace);
    expect(count).toEqual({ named: 3, back: 3 });
    expect(leadsBack(count)).toBe(true);
    countReturn(count, elsewhere, 2, ['west'], changesPlace);
    expect(count).toEqual({ named: 4, back: 3 });
    expect(leadsBack(count)).toBe(false);
    // A step that names no earlier state is not counted.
    countReturn(count, back, 1, ['east'], changesPlace);
    expect(count.named).toBe(4);
  });
});

describe('the generic model going back', () => {
  const task = (k: number): Task => ({
    id: `walk/${k}`,
    env: 'tiny-rooms',
    instruction: `Walk about, round ${k}.`,
    origin: 'seed',
  });
  // Real episodes in one house: hall —south→ den —east→ attic, and back.
  const hall = page('hall', 'south to the den');
  const den = page('den', 'north to the hall; east to the attic');
  const attic = page('attic', 'west to the den');
  const real = (k: number): Trajectory => ({
    id: `real-${k}`,
    env: 'tiny-rooms',
    task: task(k),
    initial: { text: hall, instruction: task(k).instruction },
    steps: (
      [
        ['go south', `You go south.\n${den}`],
        ['go north', `You go north.\n${hall}`],
        ['go south', `You go south.\n${den}`],
        ['go east', `You go east.\n${attic}`],
        ['look', `You look around.\n${attic}`],
        ['go west', `You go west.\n${den}`],
      ] as const
    ).map(
      ([action, text]): Step => ({
        action,
        observation: { text, instruction: task(k).instruction },
        reward: 0,
        terminated: false,
        truncated: false,
      }),
    ),
    provenance: 'real-offline',
    policyId: 'hand',
    startedAt: new Date(0).toISOString(),
    endedAt: new Date(0).toISOString(),
  });

  it('answers a move back to a room of another house as this episode saw it', async () => {
    const knowledge = GenericKnowledge.fromTrajectories([0, 1, 2, 3].map(real));
    expect(leadsBack(knowledge.stats('go <1>')?.returns ?? { named: 0, back: 0 })).toBe(true);
    const model = new GenericExperienceModel(knowledge);
    // Another house: kitchen —south→ study —east→ loft; the buffer never saw these rooms.
    const mine = task(9);
    const step = (action: string, text: string): Step => ({
      action,
      observation: { text, instruction: mine.instruction },
      reward: 0,
      terminated: false,
      truncated: false,
    });
    const study = page('study', 'north to the kitchen; east to the loft');
    const history = [
      step('go south', `You go south.\n${study}`),
      step('go east', `You go east.\n${page('loft', 'west to the study')}`),
    ];
    await model.initial(mine, []);
    const answer = await model.predict({
      task: mine,
      history,
      state: (history[1] as Step).observation,
      action: 'go west',
      demonstrations: [],
    });
    expect(answer.nextState.text).toBe(`You go west.\n${study}`);
    expect(answer.reasoning).toMatch(/back to where/);
  });
});
