import { describe, expect, it } from 'vitest';
import { composeNext } from './compose.ts';
import { EpisodeView } from './episode.ts';
import { mergeLine } from './merge.ts';

/** A real episode's step and this episode's, for composing. */
const step = (texts: string[], actions: string[]) => ({
  view: new EpisodeView(
    'a task',
    texts,
    actions,
    actions.map(() => false),
  ),
  now: texts.length - 1,
});

describe('a next state composed from a real transition', () => {
  it('carries a change in place onto this episode’s own page', () => {
    const real = step(
      [
        'Form\nname: (not set)\nphone: (not set)\n[Send]',
        'Form\nname: Ann Lee\nphone: (not set)\n[Send]',
      ],
      ['set[name=Ann Lee]'],
    );
    const ours = step(['Form\nname: (not set)\nphone: 555-0101\n[Send]'], []);
    const source = { view: real.view, now: 0 };
    expect(composeNext(source, ours, new Map([['Ann Lee', 'Bo Park']]))).toBe(
      'Form\nname: Bo Park\nphone: 555-0101\n[Send]',
    );
  });

  it('answers with this episode’s own line where the real answer repeated a line of its state', () => {
    const real = step(
      [
        'Place: yard\nHold: a pen and a key',
        'Hold: a pen and a key\nPlace: yard\nHold: a pen and a key',
      ],
      ['list'],
    );
    const ours = step(['Place: shed\nHold: a cup'], []);
    expect(composeNext({ view: real.view, now: 0 }, ours, new Map())).toBe(
      'Hold: a cup\nPlace: shed\nHold: a cup',
    );
  });

  it('takes the state’s line of a repeated line from where it stands in its kind, not its first copy', () => {
    const shed = (message: string, carry: string) =>
      `${message}\nPlace: shed\nExits: north\nScore: 0\nYou carry ${carry}.`;
    // Back to the shed from an answer listing what one holds above the page that shows it again.
    const real = step(
      [
        shed('You go west.', 'nothing'),
        'You carry a key.\nPlace: yard\nExits: east\nScore: 0\nYou carry a key.',
        shed('You go south.', 'a key'),
      ],
      ['go west', 'inventory'],
    );
    const ours = step(
      [
        shed('You go west.', 'nothing'),
        'You go north.\nPlace: hall\nExits: south\nScore: 0\nYou carry nothing.',
      ],
      ['go west'],
    );
    expect(composeNext({ view: real.view, now: 1 }, ours, new Map())).toBe(
      shed('You go south.', 'nothing'),
    );
  });

  it('takes a new page whole, its values swapped', () => {
    const real = step(['Search', 'Results for lamps\n[R-1] a lamp'], ['find[lamps]']);
    const ours = step(['Search'], []);
    expect(composeNext({ view: real.view, now: 0 }, ours, new Map([['lamps', 'clocks']]))).toBe(
      'Results for clocks\n[R-1] a lamp',
    );
  });

  it('shows a page the episode returns to as this episode showed it', () => {
    const real = step(
      [
        'Hall\nYou see a key.\nDoors: north',
        'Yard\nYou see a cart.',
        'Hall\nYou see a key.\nDoors: north',
      ],
      ['go north', 'go south'],
    );
    const ours = step(
      ['Hall\nYou see a lamp, a map.\nDoors: north', 'Yard\nYou see a cart.'],
      ['go north'],
    );
    expect(composeNext({ view: real.view, now: 1 }, ours, new Map())).toBe(
      'Hall\nYou see a lamp, a map.\nDoors: north',
    );
  });
});

describe('mergeLine', () => {
  it('applies a change of a value to our version of the line', () => {
    expect(
      mergeLine(
        'north: oak door (locked)',
        'north: oak door (unlocked)',
        'north: oak door (locked), south: gate',
      ),
    ).toBe('north: oak door (unlocked), south: gate');
  });

  it('removes a list element the change removed, and keeps our other elements', () => {
    expect(mergeLine('You see a key.', 'You see nothing.', 'You see a key, a map.')).toBe(
      'You see a map.',
    );
    expect(
      mergeLine('You see a key, a map.', 'You see a map.', 'You see a key, a map, a cup.'),
    ).toBe('You see a map, a cup.');
  });
});
