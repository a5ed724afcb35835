import { describe, expect, it } from 'vitest';
import type { Task } from '../../core/types.ts';
import { EpisodeView } from './episode.ts';
import type { RealEpisode, RealStep, TemplateStats } from './knowledge.ts';
import { frameOf, offTheRealWay, type WayKnowledge } from './real-way.ts';

const task: Task = {
  id: 't/1',
  env: 'tiny',
  instruction: 'Leave the cup in the den.',
  origin: 'seed',
};
const page = (message: string, place: string, holding: string) =>
  [message, `Place: ${place}.`, `Holding: ${holding}.`].join('\n');
const FRAME = new Set(['place :', 'holding :']);
const isFrame = (key: string) => FRAME.has(key);

// This task's one real episode: take the cup in the hall, go to the den, drop it there.
const real = new EpisodeView(
  task.instruction,
  [
    page('Hello.', 'hall', 'nothing'),
    page('Taken.', 'hall', 'a cup'),
    page('Moved.', 'den', 'a cup'),
    page('Dropped.', 'den', 'nothing'),
  ],
  ['take cup', 'go den', 'drop cup'],
  [false, false, false],
);
const episode = { view: real } as RealEpisode;
const stats = (changed: number) =>
  ({
    lines: new Map([
      ['place :', { both: 5, changed }],
      ['holding :', { both: 5, changed }],
    ]),
  }) as TemplateStats;
const knowledge: WayKnowledge = {
  isFrame,
  inWorld: (_task, action) =>
    real.actions.flatMap((a, t): RealStep[] => (a === action ? [{ episode, t }] : [])),
  // A look never changes the frame in the buffer; every other template does.
  statsOf: (action) => stats(action === 'look' ? 0 : 3),
};

describe('the way an ending rests on', () => {
  it("reads a page's frame by its last line of each frame key", () => {
    const inventory = `Holding: a cup.\n${page('', 'den', 'a cup')}`;
    expect(frameOf(inventory, isFrame)).toBe(frameOf(page('Moved.', 'den', 'a cup'), isFrame));
    expect(frameOf(page('x', 'den', 'a cup'), isFrame)).not.toBe(
      frameOf(page('x', 'hall', 'a cup'), isFrame),
    );
  });

  it("passes a way made of this task's real steps, looks and refused actions between them", () => {
    const view = new EpisodeView(
      task.instruction,
      [
        page('Hello.', 'hall', 'nothing'),
        page('Taken.', 'hall', 'a cup'),
        page('You look.', 'hall', 'a cup'),
        page('No such way.', 'hall', 'a cup'),
        page('Moved.', 'den', 'a cup'),
      ],
      ['take cup', 'look', 'go attic', 'go den'],
      [false, false, true, false],
    );
    expect(offTheRealWay(task, view, 4, knowledge)).toEqual([]);
  });

  it('names a step no real episode of the task took, though each page shows only real lines', () => {
    // Every line here is one the real episode showed; but the drop left the cup in hand.
    const view = new EpisodeView(
      task.instruction,
      [
        page('Hello.', 'hall', 'nothing'),
        page('Taken.', 'hall', 'a cup'),
        page('Dropped.', 'hall', 'a cup'),
        page('Moved.', 'den', 'a cup'),
      ],
      ['take cup', 'drop cup', 'go den'],
      [false, false, false],
    );
    expect(offTheRealWay(task, view, 3, knowledge)).toEqual([
      'step 2, "drop cup": no real episode of this task took it so',
    ]);
    // A step of a template that changes the frame needs its witness even where it changed nothing.
    const stuck = new EpisodeView(
      task.instruction,
      [page('Hello.', 'hall', 'nothing'), page('Moved.', 'hall', 'nothing')],
      ['go den'],
      [false],
    );
    expect(offTheRealWay(task, stuck, 1, knowledge)).toHaveLength(1);
  });
});
