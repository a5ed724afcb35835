import { describe, expect, it } from 'vitest';
import { KeysAndDoorsGame, type KeysGoal } from './game.ts';
import type { Layout } from './layout.ts';
import { nextCommand, solve } from './solver.ts';

/** hall (start) — north through the oak door (brass lock) — cellar; hall — east — study. */
const LAYOUT: Layout = {
  start: 'hall',
  rooms: ['hall', 'cellar', 'study'],
  links: [
    { rooms: ['hall', 'cellar'], dir: 'north', door: { name: 'oak door', lock: 'brass' } },
    { rooms: ['hall', 'study'], dir: 'east' },
  ],
  containers: [
    { name: 'wooden chest', room: 'hall', open: false },
    { name: 'tin box', room: 'cellar', open: true },
  ],
  items: [
    { name: 'brass key', metal: 'brass', place: { container: 'wooden chest' } },
    { name: 'iron key', metal: 'iron', place: { room: 'hall' } },
    { name: 'lantern', place: { room: 'cellar' } },
    { name: 'map', place: { room: 'study' } },
  ],
  region: { hall: 0, study: 0, cellar: 1 },
};

const BRING: KeysGoal = { kind: 'bring', thing: 'lantern', room: 'study' };

const play = (game: KeysAndDoorsGame, ...commands: string[]) =>
  commands.map((c) => {
    const reply = game.execute(c);
    expect(reply.ok, `${c}: ${reply.ok ? '' : reply.reason}`).toBe(true);
    return reply;
  });

describe('KeysAndDoorsGame', () => {
  it('hides what closed containers hold and what lies beyond unvisited rooms', () => {
    const game = new KeysAndDoorsGame(LAYOUT);
    expect(game.describe()).toBe(
      [
        'You are in the hall.',
        'Exits: north through the oak door (brass lock, locked) to somewhere unexplored; east to somewhere unexplored.',
        'You see a wooden chest (closed), an iron key.',
        'You carry nothing.',
      ].join('\n'),
    );
    expect(game.admissibleCommands()).not.toContain('take brass key');
    const [opened] = play(game, 'open wooden chest');
    expect(opened).toEqual({
      ok: true,
      feedback: 'You open the wooden chest. In it you see a brass key.',
    });
    expect(game.describe()).toContain('a wooden chest (open, holding a brass key)');
    expect(game.admissibleCommands()).toContain('take brass key');
  });

  it('a locked door bars the way until its own key unlocks it', () => {
    const game = new KeysAndDoorsGame(LAYOUT);
    const [bounced] = play(game, 'go north');
    expect(bounced).toEqual({ ok: true, feedback: 'The oak door is locked. Its lock is brass.' });
    expect(game.location).toBe('hall');
    play(game, 'open wooden chest', 'take brass key', 'unlock oak door with brass key', 'go north');
    expect(game.location).toBe('cellar');
    expect(game.describe()).toContain(
      'south through the oak door (brass lock, unlocked) to the hall',
    );
  });

  it('a key of another metal snaps and jams the door: the irreversible mistake', () => {
    const game = new KeysAndDoorsGame(LAYOUT);
    play(game, 'take iron key');
    expect(game.admissibleCommands()).toContain('unlock oak door with iron key');
    const [jammed] = play(game, 'unlock oak door with iron key');
    expect(jammed).toMatchObject({ ok: true, jammed: true });
    expect(game.held()).toEqual([]);
    expect(game.isUnlocked('oak door')).toBe(false);
  });

  it('refuses inadmissible commands without changing anything, naming what would do', () => {
    const game = new KeysAndDoorsGame(LAYOUT);
    const before = game.describe();
    const closed = game.execute('take brass key');
    expect(closed).toMatchObject({ ok: false });
    expect(closed.ok ? '' : closed.reason).toMatch(/you could: take iron key/);
    expect(game.execute('go west')).toMatchObject({ ok: false });
    expect(game.execute('dance')).toMatchObject({ ok: false });
    expect(game.execute('unlock oak door with map')).toMatchObject({ ok: false });
    expect(game.describe()).toBe(before);
  });

  it('reads goals from the state: left in the room (not carried), or put in the container', () => {
    const game = new KeysAndDoorsGame(LAYOUT);
    const put: KeysGoal = { kind: 'put', thing: 'map', container: 'wooden chest' };
    play(game, 'open wooden chest', 'take brass key', 'unlock oak door with brass key');
    play(game, 'go north', 'take lantern', 'go south', 'go east');
    expect(game.reached(BRING)).toBe(false);
    play(game, 'drop lantern', 'take map', 'go west');
    expect(game.reached(BRING)).toBe(true);
    expect(game.reached(put)).toBe(false);
    play(game, 'put map in wooden chest');
    expect(game.reached(put)).toBe(true);
  });

  it('the solver fetches the key first and reaches the goal on the shortest sensible way', () => {
    const game = new KeysAndDoorsGame(LAYOUT);
    expect(nextCommand(game, BRING)).toBe('open wooden chest');
    expect(solve(game, BRING)).toEqual([
      'open wooden chest',
      'take brass key',
      'unlock oak door with brass key',
      'go north',
      'take lantern',
      'go south',
      'go east',
      'drop lantern',
    ]);
    expect(nextCommand(game, BRING)).toBeUndefined();
  });
});
