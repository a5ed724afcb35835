import { describe, expect, it } from 'vitest';
import type { Step, Task, Trajectory } from '../../core/types.ts';
import { GenericExperienceModel } from './generic-model.ts';
import { GenericKnowledge } from './knowledge.ts';
import { valueFlow } from './value-flow.ts';

const frame = (key: string) => ['you are', 'you see', 'you carry'].includes(key);
const page = (place: string, seen: string, carried: string) =>
  `You are in the ${place}.\nYou see ${seen}.\nYou carry ${carried}.`;

describe('valueFlow', () => {
  it('tells where the action’s value stood before and after, and whether the message names it', () => {
    const before = `You go east.\n${page('hall', 'a lamp, a key', 'nothing')}`;
    const taken = `You take the lamp.\n${page('hall', 'a key', 'a lamp')}`;
    expect(valueFlow(before, taken, ['lamp'], frame)).toBe('you carry=01 you see=10 msg=1');
    // A composition that named another thing and left this one lying: another flow.
    const wrong = `You take the key.\n${page('hall', 'a lamp', 'a key')}`;
    expect(valueFlow(before, wrong, ['lamp'], frame)).toBe('you see=11 msg=0');
    expect(valueFlow(before, taken, [], frame)).toBe('');
  });
});

describe('the generic model and steps no real step took', () => {
  const items = ['lamp', 'key', 'book', 'cup'];
  const task = (item: string): Task => ({
    id: `carry/${item}`,
    env: 'tiny-rooms',
    instruction: `Put the ${item} in the den.`,
    origin: 'seed',
  });
  const step = (t: Task, action: string, text: string, reward = 0): Step => ({
    action,
    observation: { text, instruction: t.instruction },
    reward,
    terminated: reward > 0,
    truncated: false,
  });
  // Each task's real episode: take the thing in the hall, go south, drop it in the den.
  const way = (item: string): Step[] => {
    const t = task(item);
    return [
      step(t, `take ${item}`, `You take the ${item}.\n${page('hall', 'nothing', `a ${item}`)}`),
      step(t, 'go south', `You go south.\n${page('den', 'a chair', `a ${item}`)}`),
      step(
        t,
        `drop ${item}`,
        `You drop the ${item}.\n${page('den', `a chair, a ${item}`, 'nothing')}`,
        1,
      ),
    ];
  };
  const real = (item: string): Trajectory => ({
    id: `real-${item}`,
    env: 'tiny-rooms',
    task: task(item),
    initial: { text: page('hall', `a ${item}`, 'nothing'), instruction: task(item).instruction },
    steps: way(item),
    provenance: 'real-offline',
    policyId: 'hand',
    startedAt: new Date(0).toISOString(),
    endedAt: new Date(0).toISOString(),
  });

  it('leaves unjudged a success reached through a step whose values moved as no real step’s did', async () => {
    const knowledge = GenericKnowledge.fromTrajectories(items.map(real));
    expect(knowledge.stats('drop <1>')?.flows).toEqual(new Set(['you carry=10 you see=01 msg=1']));
    const model = new GenericExperienceModel(knowledge);
    const mine = task('lamp');
    await model.initial(mine, []);
    const finish = async (history: Step[]) =>
      model.predict({
        task: mine,
        history,
        state: (history.at(-1) as Step).observation,
        action: 'drop lamp',
        demonstrations: [],
      });
    const [take, south] = way('lamp') as [Step, Step];
    // The real way: the task's own success, replayed and judged.
    const judged = await finish([take, south]);
    expect(judged.reward).toBe(1);
    expect(judged.judged).toBeUndefined();
    // A drop in the hall that left the lamp in hand (every line of it a line of this task's
    // world), picked up again, then the same last page: the way is not one the world has.
    const dropped = step(
      mine,
      'drop lamp',
      `You drop the lamp.\n${page('hall', 'a lamp', 'a lamp')}`,
    );
    const retaken = step(mine, 'take lamp', take.observation.text);
    const unjudged = await finish([take, dropped, retaken, south]);
    expect(unjudged.judged).toBe(false);
    expect(unjudged.reward).toBe(0);
    expect(unjudged.reasoning).toMatch(/step 2, "drop lamp", moved its values/);
  });
});
