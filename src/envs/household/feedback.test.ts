import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { HAS_REFERENCE, readGrammar, readTranscripts } from './alfworld-reference.ts';
import {
  alfworldOrder,
  arrived,
  closed,
  describeReceptacle,
  examineObject,
  inventory,
  listThings,
  lookAround,
  lookFacing,
  moved,
  NOTHING_HAPPENS,
  type ObjectView,
  opened,
  pickedUp,
  put,
  sliced,
  toggled,
  treated,
} from './feedback.ts';

const names = (list: string) =>
  list === 'nothing' ? [] : list.split(', ').map((item) => item.replace(/^(and )?a /, ''));
/** Shuffled, so the tests see our ordering at work rather than the transcript's. */
const shuffled = (items: string[]) => new Rng(7).shuffle(items);
const plain: ObjectView = {
  name: 'apple 1',
  container: false,
  toggleable: false,
  sliceable: true,
  clean: false,
  hot: false,
  cool: false,
  sliced: false,
  on: false,
};

describe('household feedback phrasing', () => {
  it('lists things ALFWorld\'s way: "a" before every name, ", and" before the last, by type then number down', () => {
    expect(listThings([])).toBe('nothing');
    expect(listThings(['egg 1'])).toBe('a egg 1');
    expect(listThings(['spraybottle 2', 'candle 1'])).toBe('a candle 1, and a spraybottle 2');
    expect(alfworldOrder(['cabinet 2', 'countertop 1', 'cabinet 10', 'cabinet 1'])).toEqual([
      'cabinet 10',
      'cabinet 2',
      'cabinet 1',
      'countertop 1',
    ]);
  });

  it('describes receptacles closed, open and plain, and arriving and opening', () => {
    const cabinet = { name: 'cabinet 1', openable: true, open: false, contents: ['mug 1'] };
    expect(describeReceptacle(cabinet)).toBe('The cabinet 1 is closed.');
    expect(arrived(cabinet)).toBe('You arrive at cabinet 1. The cabinet 1 is closed.');
    expect(opened(cabinet)).toBe(
      'You open the cabinet 1. The cabinet 1 is open. In it, you see a mug 1.',
    );
    expect(opened({ ...cabinet, contents: [] })).toBe(
      'You open the cabinet 1. The cabinet 1 is open. In it, you see nothing.',
    );
    const table = {
      name: 'diningtable 1',
      openable: false,
      open: false,
      contents: ['pan 2', 'apple 1'],
    };
    expect(arrived(table)).toBe(
      'You arrive at diningtable 1. On the diningtable 1, you see a apple 1, and a pan 2.',
    );
  });

  it("words object descriptions in the order of ALFWorld's grammar", () => {
    expect(examineObject(plain)).toBe("There's nothing special about apple 1.");
    expect(examineObject({ ...plain, hot: true })).toBe('This is a hot apple 1.');
    expect(examineObject({ ...plain, cool: true })).toBe('This is a cold apple 1.');
    expect(examineObject({ ...plain, clean: true, hot: true })).toBe(
      'This is a hot and clean apple 1.',
    );
    expect(examineObject({ ...plain, clean: true, sliced: true })).toBe(
      'This is a clean sliced apple 1.',
    );
    expect(examineObject({ ...plain, sliced: true })).toBe('This is a sliced apple 1.');
    expect(examineObject({ ...plain, name: 'mug 1', container: true, hot: true })).toBe(
      'This is a normal mug 1. In it, you see nothing.',
    );
    expect(examineObject({ ...plain, name: 'desklamp 1', toggleable: true, on: true })).toBe(
      'This desklamp 1 is on.',
    );
  });

  it('says what the agent carries, and what happens to invalid commands', () => {
    expect(inventory(undefined)).toBe('You are not carrying anything.');
    expect(inventory('apple 3')).toBe('You are carrying: a apple 3.');
    expect(NOTHING_HAPPENS).toBe('Nothing happens.');
  });
});

describe.skipIf(!HAS_REFERENCE)('household feedback against ALFWorld (../shared/reference)', () => {
  const grammar = HAS_REFERENCE ? readGrammar() : '';
  const transcripts = HAS_REFERENCE ? readTranscripts() : [];

  it("every fixed sentence is a rule of ALFWorld's grammar, word for word", () => {
    const o = '{o.name}';
    const r = '{r.name}';
    const rules = [
      pickedUp(o, r),
      moved(o, r),
      closed(r),
      treated('heat', o, r),
      treated('cool', o, r),
      treated('clean', o, r),
      sliced('{co.name}', '{ko.name}'),
      toggled(o, true),
      toggled(o, false),
      inventory(undefined),
      describeReceptacle({ name: r, openable: true, open: false, contents: [] }),
      ...[
        { hot: true },
        { cool: true },
        { clean: true },
        { clean: true, hot: true },
        { clean: true, cool: true },
        { clean: true, hot: true, sliced: true },
        { clean: true, cool: true, sliced: true },
        { clean: true, sliced: true },
        { hot: true, sliced: true },
        { cool: true, sliced: true },
        { sliced: true },
        { sliceable: false, toggleable: true, on: true },
        { sliceable: false, toggleable: true, on: false },
        { sliceable: false },
      ].map((state) => examineObject({ ...plain, name: o, ...state })),
    ];
    for (const rule of rules) expect(grammar, rule).toContain(`"${rule}"`);
    const openings = [
      arrived({ name: r, openable: false, open: false, contents: [] }).replace(/On the.*/, ''),
      opened({ name: r, openable: true, open: false, contents: [] }).replace(/The.*/, ''),
      describeReceptacle({ name: r, openable: true, open: true, contents: [] }).replace(
        /nothing\.$/,
        '',
      ),
      describeReceptacle({ name: r, openable: false, open: false, contents: [] }).replace(
        /nothing\.$/,
        '',
      ),
      examineObject({ ...plain, name: o, container: true }).replace(/nothing\.$/, ''),
      inventory('x').replace('a x.', ''),
      lookAround([]).replace(/nothing\.$/, ''),
      lookFacing([], []).replace(/nothing\. Next to it, you see nothing\./, ''),
    ];
    for (const opening of openings) expect(grammar, opening).toContain(opening);
    expect(grammar).toContain('"rhs": ", and "');
  });

  it('reproduces every reply in the real ALFWorld transcripts', () => {
    let checked = 0;
    let handEdited = 0;
    for (const { turns } of transcripts) {
      for (const { command, feedback } of turns) {
        const ours = reproduce(command, feedback);
        if (ours === undefined) throw new Error(`no rule for "${command}" → "${feedback}"`);
        // The ReAct prompt authors shortened one list by hand (no ", and"); ALFWorld never does.
        if (/you see (a [^,]+, ){2,}a [^,]+\.$/.test(feedback)) {
          handEdited++;
          continue;
        }
        expect(ours, command).toBe(feedback);
        checked++;
      }
    }
    expect(checked).toBe(394);
    expect(handEdited).toBe(2);
  });

  it('reproduces the opening look around the room', () => {
    for (const { opening } of transcripts) {
      const listed = names(/you see (.+)\.$/.exec(opening)?.[1] ?? '');
      expect(lookAround(shuffled(listed))).toBe(opening);
    }
  });
});

/**
 * Our reply to a command of the transcripts, rebuilt from the names in ALFWorld's reply. The
 * transcripts predate "You arrive at X." on `go to` and print only the receptacle's description.
 */
function reproduce(command: string, feedback: string): string | undefined {
  if (feedback === 'Nothing happens.') return NOTHING_HAPPENS;
  const receptacle = (name: string, openable: boolean, open: boolean, list = 'nothing') => ({
    name,
    openable,
    open,
    contents: shuffled(names(list)),
  });
  const [, verb = '', rest = ''] =
    /^(go to|open|take|put|heat|cool|clean|use|look)\s*(.*)$/.exec(command) ?? [];
  const withWhat = /^(.+) with (.+)$/.exec(rest);
  switch (verb) {
    case 'go to': {
      const closedOne = /^The (.+) is closed\.$/.exec(feedback);
      if (closedOne) return describeReceptacle(receptacle(rest, true, false));
      const openOne = /^The (.+) is open\. In it, you see (.+)\.$/.exec(feedback);
      if (openOne) return describeReceptacle(receptacle(rest, true, true, openOne[2]));
      const surface = /^On the (.+), you see (.+)\.$/.exec(feedback);
      return surface ? describeReceptacle(receptacle(rest, false, false, surface[2])) : undefined;
    }
    case 'open': {
      const contents = /In it, you see (.+)\.$/.exec(feedback)?.[1];
      return opened(receptacle(rest, true, false, contents));
    }
    case 'take': {
      const [, o = '', r = ''] = /^(.+) from (.+)$/.exec(rest) ?? [];
      return pickedUp(o, r);
    }
    case 'put': {
      const [, o = '', r = ''] = /^(.+) in\/on (.+)$/.exec(rest) ?? [];
      return put(o, r);
    }
    case 'heat':
    case 'cool':
    case 'clean':
      return withWhat ? treated(verb, withWhat[1] as string, withWhat[2] as string) : undefined;
    case 'use':
      return toggled(rest, true);
    case 'look': {
      const facing = /^You are facing the (.+)\. Next to it/.exec(feedback)?.[1] ?? '';
      return lookFacing(shuffled(facing.split(/, (?:and )?/)), []);
    }
    default:
      return undefined;
  }
}
