import { describe, expect, it } from 'vitest';
import { ActionGrammar } from './action-grammar.ts';
import { EpisodeView } from './episode.ts';
import { valueMapping } from './value-mapping.ts';
import { WordFrequency } from './word-frequency.ts';

describe('valueMapping', () => {
  const grammar = ActionGrammar.learn([
    'take silver key',
    'take brass key',
    'take iron key',
    'take copper key',
  ]);
  const vocabulary = new WordFrequency(0.5);
  const at = (instruction: string, state: string) => ({
    view: new EpisodeView(instruction, [state], [], []),
    now: 0,
  });

  it('leaves a value both actions name as it is, and every value holding it or held in it', () => {
    expect(grammar.parse('take silver key')).toEqual({
      template: 'take <1> key',
      values: ['silver'],
    });
    const theirs = at('Open the ruby chest.', 'You see a silver key, a candle.');
    const ours = at('Open the oak chest.', 'You see a brass key, a silver key.');
    const mapping = valueMapping(
      theirs,
      'take silver key',
      ours,
      'take silver key',
      grammar,
      vocabulary,
    );
    // Aligned loosely, the states would swap `a silver key` for `a brass key` and `candle` for
    // `silver key`, and the answer would take the wrong key.
    for (const [from, to] of mapping) {
      expect(from).not.toMatch(/silver/);
      expect(to).not.toMatch(/silver/);
    }
    expect(mapping.get('ruby')).toBe('oak');
  });

  it('maps the value the source action named onto the one ours names', () => {
    const theirs = at('Open the ruby chest.', 'You see a brass key.');
    const ours = at('Open the oak chest.', 'You see a silver key.');
    const mapping = valueMapping(
      theirs,
      'take brass key',
      ours,
      'take silver key',
      grammar,
      vocabulary,
    );
    expect(mapping.get('brass')).toBe('silver');
  });

  it('maps no list onto one thing when aligning states loosely', () => {
    const lines = (carry: string) => `You are in the hall.\nYou carry: ${carry}.`;
    const theirs = at('Open the ruby chest.', lines('a bronze key and a map'));
    const ours = at('Open the oak chest.', lines('a spyglass'));
    const mapping = valueMapping(
      theirs,
      'take brass key',
      ours,
      'take iron key',
      grammar,
      vocabulary,
    );
    expect(mapping.has('bronze key and a map')).toBe(false);
    expect([...mapping.keys()].some((k) => /map/.test(k))).toBe(false);
    // One thing for one thing still maps.
    const one = valueMapping(
      at('Open the ruby chest.', lines('a bronze key')),
      'take brass key',
      ours,
      'take iron key',
      grammar,
      vocabulary,
    );
    expect(one.get('bronze key')).toBe('spyglass');
  });
});
