import { describe, expect, it } from 'vitest';
import { ActionGrammar } from './action-grammar.ts';
import { EpisodeView } from './episode.ts';
import { endingOf } from './outcome-features.ts';

describe('endingOf', () => {
  const grammar = ActionGrammar.learn(['drop lamp', 'drop map', 'drop cup', 'drop key']);
  const view = new EpisodeView(
    'Leave the lamp in the den.',
    ['You carry a lamp and a map.'],
    [],
    [],
  );

  it('tells the thing the task names from another one the episode holds', () => {
    const task = endingOf(view, 0, 'drop lamp', grammar);
    const other = endingOf(view, 0, 'drop map', grammar);
    expect(task).toEqual({ template: 'drop <1>', roles: 'a+task:w' });
    expect(other).toEqual({ template: 'drop <1>', roles: 'a:w' });
  });
});
