import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { generateScene, type Scene } from './scene.ts';
import { HouseholdWorld, type Outcome } from './world.ts';

/** A small hand-made kitchen corner, so each rule can be walked through by name. */
const scene: Scene = {
  room: 'kitchen',
  seed: 0,
  receptacles: [
    { name: 'cabinet 1', type: 'cabinet', openable: true },
    { name: 'countertop 1', type: 'countertop', openable: false },
    { name: 'fridge 1', type: 'fridge', openable: true },
    { name: 'microwave 1', type: 'microwave', openable: true },
    { name: 'sinkbasin 1', type: 'sinkbasin', openable: false },
    { name: 'sidetable 1', type: 'sidetable', openable: false },
    { name: 'stoveburner 1', type: 'stoveburner', openable: false },
  ],
  objects: [
    { name: 'apple 1', type: 'apple', receptacle: 'countertop 1', onFloor: false },
    { name: 'knife 1', type: 'knife', receptacle: 'countertop 1', onFloor: false },
    { name: 'mug 1', type: 'mug', receptacle: 'cabinet 1', onFloor: false },
    { name: 'desklamp 1', type: 'desklamp', receptacle: 'sidetable 1', onFloor: false },
    { name: 'floorlamp 1', type: 'floorlamp', receptacle: 'sidetable 1', onFloor: true },
  ],
};

const ok = (feedback: string): Outcome => ({ ok: true, feedback });
const refused = expect.objectContaining({ ok: false, reason: expect.any(String) });

describe('household world rules', () => {
  it('starts in the middle of the room, where only going, looking and inventory work', () => {
    const world = HouseholdWorld.fromScene(scene);
    expect(world.location).toBeUndefined();
    expect(world.execute('look')).toEqual(
      ok(
        'You are in the middle of a room. Looking quickly around you, you see a cabinet 1, a countertop 1, a fridge 1, a microwave 1, a sidetable 1, a sinkbasin 1, and a stoveburner 1.',
      ),
    );
    expect(world.admissibleCommands()).toEqual([
      'go to cabinet 1',
      'go to countertop 1',
      'go to fridge 1',
      'go to microwave 1',
      'go to sidetable 1',
      'go to sinkbasin 1',
      'go to stoveburner 1',
      'inventory',
      'look',
    ]);
    expect(world.execute('take apple 1 from countertop 1')).toEqual(refused);
    expect(world.execute('open cabinet 1')).toEqual(refused);
  });

  it('opens, takes, carries and closes like ALFWorld', () => {
    const world = HouseholdWorld.fromScene(scene);
    expect(world.execute('go to cabinet 1')).toEqual(
      ok('You arrive at cabinet 1. The cabinet 1 is closed.'),
    );
    expect(world.execute('take mug 1 from cabinet 1')).toEqual(refused);
    expect(world.execute('go to cabinet 1')).toEqual(refused);
    expect(world.execute('open cabinet 1')).toEqual(
      ok('You open the cabinet 1. The cabinet 1 is open. In it, you see a mug 1.'),
    );
    expect(world.execute('open cabinet 1')).toEqual(refused);
    expect(world.execute('take mug 1 from cabinet 1')).toEqual(
      ok('You pick up the mug 1 from the cabinet 1.'),
    );
    expect(world.execute('inventory')).toEqual(ok('You are carrying: a mug 1.'));
    expect(world.execute('examine cabinet 1')).toEqual(
      ok('The cabinet 1 is open. In it, you see nothing.'),
    );
    expect(world.execute('close cabinet 1')).toEqual(ok('You close the cabinet 1.'));
    expect(world.execute('move mug 1 to cabinet 1')).toEqual(refused);
    expect(world.execute('go to countertop 1')).toEqual(
      ok('You arrive at countertop 1. On the countertop 1, you see a apple 1, and a knife 1.'),
    );
    expect(world.execute('take apple 1 from countertop 1')).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/hand is full/),
    });
    expect(world.execute('move mug 1 to countertop 1')).toEqual(
      ok('You move the mug 1 to the countertop 1.'),
    );
    expect(world.execute('inventory')).toEqual(ok('You are not carrying anything.'));
  });

  it('accepts the older "put X in/on Y" with its own reply, and refuses what a receptacle cannot hold', () => {
    const world = HouseholdWorld.fromScene(scene);
    world.execute('go to countertop 1');
    world.execute('take apple 1 from countertop 1');
    world.execute('go to stoveburner 1');
    expect(world.execute('move apple 1 to stoveburner 1')).toMatchObject({
      ok: false,
      reason: 'a apple does not go in or on a stoveburner.',
    });
    world.execute('go to sidetable 1');
    expect(world.execute('put apple 1 in/on sidetable 1')).toEqual(
      ok('You put the apple 1 in/on the sidetable 1.'),
    );
    expect(world.execute('Take  Apple 1 from sidetable 1')).toEqual(
      ok('You pick up the apple 1 from the sidetable 1.'),
    );
    expect(world.execute('put apple 1 on sidetable 1')).toEqual(
      ok('You put the apple 1 in/on the sidetable 1.'),
    );
  });

  it('cleans in a sink basin, heats in a microwave, cools in a fridge, closed or not', () => {
    const world = HouseholdWorld.fromScene(scene);
    world.execute('go to countertop 1');
    world.execute('take apple 1 from countertop 1');
    expect(world.execute('clean apple 1 with countertop 1')).toEqual(refused);
    world.execute('go to sinkbasin 1');
    expect(world.execute('heat apple 1 with sinkbasin 1')).toEqual(refused);
    expect(world.execute('clean apple 1 with sinkbasin 1')).toEqual(
      ok('You clean the apple 1 using the sinkbasin 1.'),
    );
    expect(world.execute('examine apple 1')).toEqual(ok('This is a clean apple 1.'));
    world.execute('go to microwave 1');
    expect(world.execute('heat apple 1 with microwave 1')).toEqual(
      ok('You heat the apple 1 using the microwave 1.'),
    );
    expect(world.execute('examine apple 1')).toEqual(ok('This is a hot and clean apple 1.'));
    world.execute('go to fridge 1');
    expect(world.execute('cool apple 1 with fridge 1')).toEqual(
      ok('You cool the apple 1 using the fridge 1.'),
    );
    expect(world.object('apple 1')).toMatchObject({ clean: true, hot: false, cool: true });
  });

  it('slices with a knife, switches lamps on and off, and shows what stands on the floor', () => {
    const world = HouseholdWorld.fromScene(scene);
    world.execute('go to countertop 1');
    expect(world.execute('slice apple 1 with knife 1')).toEqual(refused);
    world.execute('take knife 1 from countertop 1');
    expect(world.admissibleCommands()).toContain('slice apple 1 with knife 1');
    expect(world.execute('slice apple 1 with knife 1')).toEqual(
      ok('You sliced the apple 1 with the knife 1.'),
    );
    expect(world.execute('examine apple 1')).toEqual(ok('This is a sliced apple 1.'));
    expect(world.execute('use desklamp 1')).toEqual(refused);
    world.execute('go to sidetable 1');
    expect(world.execute('use desklamp 1')).toEqual(ok('You turn on the desklamp 1.'));
    expect(world.execute('examine desklamp 1')).toEqual(ok('This desklamp 1 is on.'));
    expect(world.execute('use desklamp 1')).toEqual(ok('You turn off the desklamp 1.'));
    expect(world.execute('use floorlamp 1')).toEqual(ok('You turn on the floorlamp 1.'));
    expect(world.execute('take desklamp 1 from sidetable 1')).toEqual(refused);
    expect(world.execute('look')).toEqual(
      ok('You are facing the sidetable 1. Next to it, you see a floorlamp 1.'),
    );
    expect(world.execute('examine sidetable 1')).toEqual(
      ok('On the sidetable 1, you see a desklamp 1.'),
    );
  });

  it('refuses unknown commands and names, saying why, and changes nothing', () => {
    const world = HouseholdWorld.fromScene(scene);
    world.execute('go to countertop 1');
    const before = world.clone();
    for (const command of [
      '',
      'fly to the moon',
      'go to cabinet 9',
      'take pear 1 from countertop 1',
    ]) {
      const outcome = world.execute(command);
      expect(outcome).toEqual(refused);
    }
    expect(world.execute('frobnicate')).toMatchObject({ reason: /not a household command/ });
    expect(world.admissibleCommands()).toEqual(before.admissibleCommands());
    expect(world.execute('look')).toEqual(before.execute('look'));
  });

  it('a clone is independent of its original', () => {
    const world = HouseholdWorld.fromScene(scene);
    const copy = world.clone();
    copy.execute('go to cabinet 1');
    copy.execute('open cabinet 1');
    copy.execute('take mug 1 from cabinet 1');
    expect(world.location).toBeUndefined();
    expect(world.isOpen('cabinet 1')).toBe(false);
    expect(world.object('mug 1')?.receptacle).toBe('cabinet 1');
  });

  it('admissible commands are exactly the commands that work, all along random walks', () => {
    for (const [k, room] of (['kitchen', 'livingroom', 'bedroom', 'bathroom'] as const).entries()) {
      const world = HouseholdWorld.fromScene(generateScene({ room, seed: 100 + k }));
      const rng = new Rng(k);
      const mismatches: string[] = [];
      for (let t = 0; t < 40; t++) {
        const admissible = new Set(world.admissibleCommands());
        for (const command of candidateCommands(world)) {
          // A refused command changes nothing, so only admissible ones need a copy to try on.
          const tried = admissible.has(command) ? world.clone() : world;
          if (tried.execute(command).ok !== admissible.has(command)) mismatches.push(command);
        }
        world.execute(rng.pick([...admissible]));
      }
      expect(mismatches).toEqual([]);
    }
  });
});

/** Every command form over the names in the room. */
function candidateCommands(world: HouseholdWorld): string[] {
  const receptacles = world.scene.receptacles.map((r) => r.name);
  const objects = world.scene.objects.map((o) => o.name);
  const commands = ['look', 'inventory'];
  for (const r of receptacles) {
    commands.push(`go to ${r}`, `open ${r}`, `close ${r}`, `examine ${r}`);
    for (const o of objects) {
      commands.push(`take ${o} from ${r}`, `move ${o} to ${r}`);
      for (const verb of ['heat', 'cool', 'clean']) commands.push(`${verb} ${o} with ${r}`);
    }
  }
  // Slicing needs the blade in hand: the held object and one other stand for all blades.
  const blades = [world.holding?.name ?? 'knife 1', objects[0] ?? 'knife 1'];
  for (const o of objects) {
    commands.push(`use ${o}`, `examine ${o}`);
    for (const blade of blades) commands.push(`slice ${o} with ${blade}`);
  }
  return commands;
}
