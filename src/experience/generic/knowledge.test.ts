import { describe, expect, it } from 'vitest';
import type { Observation, Step, Task, Trajectory } from '../../core/types.ts';
import { GenericExperienceModel } from './generic-model.ts';
import { GenericKnowledge } from './knowledge.ts';

/** A real episode of `task` made of `steps` (the text, reward and end after each action). */
function episode(
  task: Task,
  initial: string,
  steps: Array<[action: string, text: string, reward?: number, terminated?: boolean]>,
): Trajectory {
  return {
    id: `${task.id}-${steps.length}-${steps.map((s) => s[0]).join()}`,
    env: task.env,
    task,
    initial: { text: initial, instruction: task.instruction },
    steps: steps.map(
      ([action, text, reward = 0, terminated = false]): Step => ({
        action,
        observation: { text, instruction: task.instruction },
        reward,
        terminated,
        truncated: false,
      }),
    ),
    provenance: 'real-offline',
    policyId: 'hand',
    startedAt: new Date(0).toISOString(),
    endedAt: new Date(0).toISOString(),
  };
}

describe('GenericKnowledge', () => {
  it('takes an action as a lookup only when repeated from another page answers the same', () => {
    // Going and coming back changes a page's first line only: the same page, no evidence either
    // way. From another page, the same action answered otherwise: not a lookup.
    const task: Task = { id: 't/0', env: 'tiny', instruction: 'Walk about.', origin: 'seed' };
    const ways: Record<string, string> = { yard: 'left, right', shed: 'right', barn: 'up' };
    const page = (message: string, place: string) =>
      `${message}\nPlace: ${place}\nWays: ${ways[place]}\nHold: nothing`;
    const knowledge = GenericKnowledge.fromTrajectories([
      episode(task, page('Start.', 'yard'), [
        ['walk[left]', page('You walk.', 'shed')],
        ['walk[right]', page('You walk.', 'yard')],
        ['walk[left]', page('You walk.', 'shed')],
        ['walk[left]', page('You walk.', 'barn')],
      ]),
    ]);
    const template = knowledge.grammar.parse('walk[left]').template;
    expect(knowledge.stats(template)).toMatchObject({ repeats: 1, sameAnswers: 0 });
  });

  it("labels a step's outcome by the answer's kind, not by the value it named", () => {
    const task: Task = { id: 't/0', env: 'tiny', instruction: 'Tidy up.', origin: 'seed' };
    const knowledge = GenericKnowledge.fromTrajectories([
      episode(task, 'Here: hall\nHold: pen, cup', [
        ['put[pen]', 'You put the pen away.\nHere: hall\nHold: cup'],
        ['put[cup]', 'You put the cup away.\nHere: hall\nHold: nothing'],
      ]),
    ]);
    const steps = knowledge.candidates(knowledge.grammar.parse('put[pen]').template);
    expect(steps).toHaveLength(2);
    const [first, second] = steps.map((s) => knowledge.outcomeOf(s));
    expect(first).toBe(second);
    expect(first).not.toContain('pen');
  });
});

describe('GenericExperienceModel, the very task’s real step', () => {
  it('is not copied where the circumstances call for another outcome than it had', async () => {
    // Leaving a thing ends an episode in the place the task names, and only there.
    const places = ['north hall', 'south hall', 'east hall', 'west hall'];
    const things = ['pen', 'cup', 'lamp', 'bell', 'coin'];
    const episodes: Trajectory[] = [];
    let n = 0;
    for (const thing of things) {
      for (const goal of places) {
        const task: Task = {
          id: `tiny/${n++}`,
          env: 'tiny',
          instruction: `Leave the ${thing} in the ${goal}.`,
          origin: 'seed',
        };
        const elsewhere = places[(places.indexOf(goal) + 1) % places.length] as string;
        const page = (place: string, held: string) => `You are in the ${place}.\nHold: ${held}`;
        episodes.push(
          episode(task, page(elsewhere, thing), [
            [`leave[${thing}]`, `You leave the ${thing}.\n${page(elsewhere, 'nothing')}`],
            [`take[${thing}]`, `You take the ${thing}.\n${page(elsewhere, thing)}`],
            [`walk[${goal}]`, `You walk.\n${page(goal, thing)}`],
            [`leave[${thing}]`, `You leave the ${thing}.\n${page(goal, 'nothing')}`, 1, true],
          ]),
        );
      }
    }
    const model = new GenericExperienceModel(GenericKnowledge.fromTrajectories(episodes));
    // Task 0 (the pen, the north hall): this episode holds the pen in the west hall, where its
    // real episode never stood, and leaves it there.
    const real = episodes[0] as Trajectory;
    const state: Observation = {
      text: 'You walk.\nYou are in the west hall.\nHold: pen',
      instruction: real.task.instruction,
    };
    const history: Step[] = [
      {
        action: 'walk[west hall]',
        observation: state,
        reward: 0,
        terminated: false,
        truncated: false,
      },
    ];
    const prediction = await model.predict({
      task: real.task,
      history,
      state,
      action: 'leave[pen]',
      demonstrations: [],
    });
    expect(prediction.terminated).toBe(false);
    expect(prediction.reward).toBe(0);
    // In the place the task names, the real ending is the answer.
    const there = { ...state, text: 'You walk.\nYou are in the north hall.\nHold: pen' };
    const ending = await model.predict({
      task: real.task,
      history: [{ ...(history[0] as Step), action: 'walk[north hall]', observation: there }],
      state: there,
      action: 'leave[pen]',
      demonstrations: [],
    });
    expect(ending.terminated).toBe(true);
  });
});

describe('GenericExperienceModel, a form', () => {
  it('answers a button as its own real clicks did where the field left unset decided', async () => {
    // `Go` is refused while the size is unset; an optional note is always unset, so only which
    // field is unset tells (not the words "not set"). Help and Back clicks fill the template.
    const names = ['amber', 'basil', 'cedar', 'delta', 'ember', 'fjord', 'gorse', 'heron'];
    const sizes = ['small', 'large', 'tall', 'wide', 'short', 'round', 'flat', 'long'];
    const form = (name: string, size: string, missing = false) =>
      `Find a thing\n${missing ? '! Missing: size\n' : ''}name: ${name}\nsize: ${size}\nnote: (not set)\n[Go] [Help]`;
    const help = 'Help\nFill name and size, then Go.\n[Back]';
    const episodes = names.map((name, i) => {
      const task: Task = {
        id: `form/${i}`,
        env: 'form',
        instruction: `Find the ${name} things of size ${sizes[i]}.`,
        origin: 'seed',
      };
      const size = sizes[i] as string;
      const found = `Things named ${name}, size ${size}: 2 found\n[Back]`;
      const steps: Array<[string, string, number?, boolean?]> = [
        [`set[name=${name}]`, form(name, '(not set)')],
        ['click[Help]', help],
        ['click[Back]', form(name, '(not set)')],
      ];
      // Half the episodes press Go too early first.
      if (i % 2 === 0) steps.push(['click[Go]', form(name, '(not set)', true)]);
      steps.push(
        [`set[size=${size}]`, form(name, size, i % 2 === 0)],
        ['click[Go]', found],
        ['click[Back]', form(name, size)],
        ['click[Go]', found, 1, true],
      );
      return episode(task, form('(not set)', '(not set)'), steps);
    });
    const model = new GenericExperienceModel(GenericKnowledge.fromTrajectories(episodes));
    const task: Task = {
      id: 'form/new',
      env: 'form',
      instruction: 'Find the ivory things of size thin.',
      origin: 'seed',
    };
    const go = async (text: string) =>
      (
        await model.predict({
          task,
          history: [
            {
              action: 'set[name=ivory]',
              observation: { text, instruction: task.instruction },
              reward: 0,
              terminated: false,
              truncated: false,
            },
          ],
          state: { text, instruction: task.instruction },
          action: 'click[Go]',
          demonstrations: [],
        })
      ).nextState.text;
    expect(await go(form('ivory', '(not set)'))).toContain('! Missing: size');
    expect(await go(form('ivory', 'thin'))).toMatch(/^Things named ivory, size thin/);
  });
});

describe('GenericExperienceModel, the decisive features', () => {
  it('does not end an episode where the one feature that decided endings says no', async () => {
    // Most real drops ended their episodes, in the room each task named; two did not, elsewhere.
    // Dropping a thing in a room the task does not name must not end this episode, however much
    // else (what one carries, the way there) it shares with the drops that ended.
    const rooms = ['den', 'loft', 'hall', 'study', 'attic', 'cellar', 'pantry', 'porch'];
    const things = ['lamp', 'vase', 'bell', 'book', 'cup', 'pen', 'hat', 'rug'];
    const page = (room: string, carry: string) =>
      `You are in the ${room}.\nExits: north, south.\nYou carry ${carry}.`;
    const episodes = rooms.map((goal, i) => {
      const thing = things[i % things.length] as string;
      const task: Task = {
        id: `drop/${i}`,
        env: 'drop',
        instruction: `Leave the ${thing} in the ${goal}.`,
        origin: 'seed',
      };
      const start = rooms[(i + 1) % rooms.length] as string;
      const way = rooms[(i + 2) % rooms.length] as string;
      // Most carry a key too, as this episode does; the two that put their thing down on the way
      // (and took it up again) carry none, nor do two of those that ended.
      const keyed = i >= 4;
      const carry = (held: boolean) =>
        [keyed ? 'a key' : '', held ? `a ${thing}` : ''].filter(Boolean).join(' and ') || 'nothing';
      const steps: Array<[string, string, number?, boolean?]> = [];
      if (i < 2)
        steps.push(
          ['go north', `You go north.\n${page(way, carry(true))}`],
          [`drop ${thing}`, `You drop the ${thing}.\n${page(way, carry(false))}`],
          [`take ${thing}`, `You take the ${thing}.\n${page(way, carry(true))}`],
        );
      steps.push(
        ['go north', `You go north.\n${page(goal, carry(true))}`],
        [`drop ${thing}`, `You drop the ${thing}.\n${page(goal, carry(false))}`, 1, true],
      );
      return episode(task, page(start, carry(true)), steps);
    });
    const model = new GenericExperienceModel(GenericKnowledge.fromTrajectories(episodes));
    const task: Task = {
      id: 'drop/new',
      env: 'drop',
      instruction: 'Leave the lamp in the garden.',
      origin: 'seed',
    };
    const drop = async (room: string) => {
      const text = `You go north.\n${page(room, 'a key and a lamp')}`;
      return model.predict({
        task,
        history: [
          {
            action: 'go north',
            observation: { text, instruction: task.instruction },
            reward: 0,
            terminated: false,
            truncated: false,
          },
        ],
        state: { text, instruction: task.instruction },
        action: 'drop lamp',
        demonstrations: [],
      });
    };
    expect((await drop('loft')).terminated).toBe(false);
    expect((await drop('garden')).terminated).toBe(true);
  });
});

describe('GenericExperienceModel, an ending vouched for by the way there', () => {
  it("scores a replayed real success only when every page on the way was this task's", async () => {
    const form = (town: string, nights: string) =>
      `Find a room\ntown: ${town}\nnights: ${nights}\n[Search]`;
    const rooms = (nights: string, price: string) =>
      `Rooms in Oxby, ${nights} nights:\n[R-1] Elm · ${price}\n[Back]`;
    const room = 'Elm (R-1), 2 nights: $80\n[Book]';
    const task: Task = {
      id: 'book/0',
      env: 'book',
      instruction: 'Book the cheapest room in Oxby for 2 nights.',
      origin: 'seed',
    };
    const real = episode(task, form('(not set)', '(not set)'), [
      ['set[town=Oxby]', form('Oxby', '(not set)')],
      ['set[nights=2]', form('Oxby', '2')],
      ['click[Search]', rooms('2', '$80')],
      ['click[R-1]', room],
      ['click[Book]', 'Booked.', 1, true],
    ]);
    const model = new GenericExperienceModel(GenericKnowledge.fromTrajectories([real]));
    const step = (action: string, text: string): Step => ({
      action,
      observation: { text, instruction: task.instruction },
      reward: 0,
      terminated: false,
      truncated: false,
    });
    const book = (shown: string) =>
      model.predict({
        task,
        history: [
          step('set[town=Oxby]', form('Oxby', '(not set)')),
          step('set[nights=2]', form('Oxby', '2')),
          step('click[Search]', shown),
          step('click[R-1]', room),
        ],
        state: { text: room, instruction: task.instruction },
        action: 'click[Book]',
        demonstrations: [],
      });
    const theWay = await book(rooms('2', '$80'));
    expect([theWay.reward, theWay.terminated, theWay.judged]).toEqual([1, true, undefined]);
    // The same last page, reached through results this task's episode never showed.
    const elsewhere = await book(rooms('3', '$120'));
    expect([elsewhere.reward, elsewhere.terminated, elsewhere.judged]).toEqual([0, true, false]);
    expect(elsewhere.reasoning).toContain('the way here passed where no real episode');
  });
});

describe('GenericKnowledge.nearlyExact', () => {
  const task: Task = { id: 'form/0', env: 'form', instruction: 'Fill the form.', origin: 'seed' };
  const form = (a: string, message?: string) =>
    [`Form`, ...(message ? [`! Error: ${message}`] : []), `a: ${a}`, `b: (not set)`, `[Go]`].join(
      '\n',
    );
  // The real episode went once before a was set: its form kept the refusal's message.
  const real = episode(task, form('(not set)'), [
    ['go', form('(not set)', 'a is missing')],
    ['set[a=1]', form('1', 'a is missing')],
    ['go', 'Done: a = 1', 1, true],
  ]);
  const other: Task = { id: 'form/1', env: 'form', instruction: 'Fill it again.', origin: 'seed' };
  const knowledge = GenericKnowledge.fromTrajectories([
    real,
    episode(other, form('(not set)'), [
      ['set[a=2]', form('2')],
      ['go', 'Done: a = 2', 1, true],
    ]),
  ]);

  it("finds this task's real step from this state but for a message line", () => {
    const found = knowledge.nearlyExact(task, form('1'), 'go');
    expect(found?.step.t).toBe(2);
    expect(found?.differing).toBe(1);
  });

  it('is no match where a line of the frame differs, or on another task', () => {
    expect(knowledge.nearlyExact(task, form('3'), 'go')).toBeUndefined();
    expect(knowledge.nearlyExact(other, form('1'), 'go')).toBeUndefined();
    // The very state is exact, not nearly.
    expect(knowledge.nearlyExact(task, form('1', 'a is missing'), 'go')).toBeUndefined();
  });
});

describe('AdmissibleRules.isConstant', () => {
  it("tells an env's fixed options from a task's own values", () => {
    const towns = ['Ash', 'Elm', 'Oak', 'Yew'];
    const episodes = Array.from({ length: 12 }, (_, i) => {
      const t: Task = {
        id: `f/${i}`,
        env: 'f',
        instruction: `Go to ${towns[i % 4]}.`,
        origin: 'seed',
      };
      const listed = [
        `set[town=${towns[i % 4]}]`,
        `set[town=${towns[(i + 1) % 4]}]`,
        'set[nights=1]',
        'set[nights=2]',
        'set[nights=3]',
      ];
      const trajectory = episode(t, 'Form', [[`set[town=${towns[i % 4]}]`, 'Form']]);
      trajectory.initial.actions = listed;
      (trajectory.steps[0] as Step).observation.actions = listed;
      return trajectory;
    });
    const rules = GenericKnowledge.fromTrajectories(episodes).admissible;
    expect(rules.isConstant('set[nights=2]')).toBe(true);
    expect(rules.isConstant('set[town=Ash]')).toBe(false);
  });
});
