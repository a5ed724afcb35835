import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { HAS_REFERENCE, readTranscripts } from './alfworld-reference.ts';
import {
  goalReached,
  type HouseholdGoal,
  INSTRUCTION_TEMPLATES,
  parseInstruction,
  type TaskType,
  writeInstruction,
} from './goals.ts';
import type { Scene } from './scene.ts';
import { HouseholdWorld } from './world.ts';

const scene: Scene = {
  room: 'livingroom',
  seed: 0,
  receptacles: [
    { name: 'sofa 1', type: 'sofa', openable: false },
    { name: 'sidetable 1', type: 'sidetable', openable: false },
    { name: 'sidetable 2', type: 'sidetable', openable: false },
    { name: 'drawer 1', type: 'drawer', openable: true },
  ],
  objects: [
    { name: 'pillow 1', type: 'pillow', receptacle: 'sofa 1', onFloor: false },
    { name: 'creditcard 1', type: 'creditcard', receptacle: 'sofa 1', onFloor: false },
    { name: 'creditcard 2', type: 'creditcard', receptacle: 'drawer 1', onFloor: false },
    { name: 'desklamp 1', type: 'desklamp', receptacle: 'sidetable 2', onFloor: false },
  ],
};

const play = (world: HouseholdWorld, commands: string[]) => {
  for (const command of commands) expect(world.execute(command).ok, command).toBe(true);
};

describe('household goals', () => {
  it('pick and place: any object of the type in any receptacle of the type', () => {
    const world = HouseholdWorld.fromScene(scene);
    const goal: HouseholdGoal = {
      type: 'pick_and_place',
      object: 'creditcard',
      receptacle: 'sidetable',
    };
    play(world, ['go to sofa 1', 'take creditcard 1 from sofa 1', 'go to sidetable 2']);
    expect(goalReached(world, goal)).toBe(false);
    play(world, ['move creditcard 1 to sidetable 2']);
    expect(goalReached(world, goal)).toBe(true);
  });

  it('pick two: two objects of the type in one receptacle, not spread over two', () => {
    const world = HouseholdWorld.fromScene(scene);
    const goal: HouseholdGoal = {
      type: 'pick_two_obj_and_place',
      object: 'creditcard',
      receptacle: 'sidetable',
    };
    play(world, ['go to sofa 1', 'take creditcard 1 from sofa 1', 'go to sidetable 1']);
    play(world, ['move creditcard 1 to sidetable 1', 'go to drawer 1', 'open drawer 1']);
    play(world, ['take creditcard 2 from drawer 1', 'go to sidetable 2']);
    play(world, ['move creditcard 2 to sidetable 2']);
    expect(goalReached(world, goal)).toBe(false);
    play(world, ['take creditcard 2 from sidetable 2', 'go to sidetable 1']);
    play(world, ['move creditcard 2 to sidetable 1']);
    expect(goalReached(world, goal)).toBe(true);
  });

  it('look at in light: holding the object where a lamp of the type is on', () => {
    const world = HouseholdWorld.fromScene(scene);
    const goal: HouseholdGoal = {
      type: 'look_at_obj_in_light',
      object: 'pillow',
      light: 'desklamp',
    };
    play(world, ['go to sidetable 2', 'use desklamp 1', 'go to sofa 1']);
    play(world, ['take pillow 1 from sofa 1']);
    expect(goalReached(world, goal)).toBe(false);
    play(world, ['go to sidetable 2']);
    expect(goalReached(world, goal)).toBe(true);
    play(world, ['use desklamp 1']);
    expect(goalReached(world, goal)).toBe(false);
    expect(goalReached(world, { ...goal, light: 'floorlamp' })).toBe(false);
  });

  it('clean, heat and cool: the object must be treated before it is placed', () => {
    const kitchen: Scene = {
      room: 'kitchen',
      seed: 0,
      receptacles: [
        { name: 'countertop 1', type: 'countertop', openable: false },
        { name: 'microwave 1', type: 'microwave', openable: true },
        { name: 'fridge 1', type: 'fridge', openable: true },
      ],
      objects: [{ name: 'egg 1', type: 'egg', receptacle: 'countertop 1', onFloor: false }],
    };
    const world = HouseholdWorld.fromScene(kitchen);
    const hot: HouseholdGoal = {
      type: 'pick_heat_then_place',
      object: 'egg',
      receptacle: 'fridge',
    };
    const cool: HouseholdGoal = { ...hot, type: 'pick_cool_then_place' };
    play(world, ['go to countertop 1', 'take egg 1 from countertop 1', 'go to fridge 1']);
    play(world, ['open fridge 1', 'move egg 1 to fridge 1']);
    expect(goalReached(world, { ...hot, type: 'pick_and_place' })).toBe(true);
    expect(goalReached(world, hot)).toBe(false);
    play(world, ['take egg 1 from fridge 1', 'go to microwave 1', 'heat egg 1 with microwave 1']);
    play(world, ['go to fridge 1', 'move egg 1 to fridge 1']);
    expect(goalReached(world, hot)).toBe(true);
    expect(goalReached(world, cool)).toBe(false);
  });

  it('writes instructions that parse back to the same goal', () => {
    const rng = new Rng(1);
    const goals: HouseholdGoal[] = [
      { type: 'pick_and_place', object: 'spraybottle', receptacle: 'toilet' },
      { type: 'pick_two_obj_and_place', object: 'pillow', receptacle: 'sofa' },
      { type: 'look_at_obj_in_light', object: 'alarmclock', light: 'desklamp' },
      { type: 'pick_clean_then_place', object: 'lettuce', receptacle: 'diningtable' },
      { type: 'pick_heat_then_place', object: 'egg', receptacle: 'garbagecan' },
      { type: 'pick_cool_then_place', object: 'pan', receptacle: 'stoveburner' },
    ];
    for (const goal of goals) {
      for (let i = 0; i < 10; i++)
        expect(parseInstruction(writeInstruction(goal, rng))).toEqual(goal);
    }
    expect(parseInstruction('buy a mug.')).toBeUndefined();
  });
});

describe.skipIf(!HAS_REFERENCE)(
  'household instructions against ALFWorld (../shared/reference)',
  () => {
    const TYPE_OF_TRANSCRIPT: Record<string, TaskType> = {
      put: 'pick_and_place',
      puttwo: 'pick_two_obj_and_place',
      examine: 'look_at_obj_in_light',
      clean: 'pick_clean_then_place',
      heat: 'pick_heat_then_place',
      cool: 'pick_cool_then_place',
    };

    it('our templates produce every phrasing of the real tasks, of the right type', () => {
      const transcripts = HAS_REFERENCE ? readTranscripts() : [];
      for (const { name, instruction } of transcripts) {
        const goal = parseInstruction(instruction);
        expect(goal, instruction).toBeDefined();
        expect(goal?.type, instruction).toBe(TYPE_OF_TRANSCRIPT[name.split('_')[1] as string]);
      }
      // And each of our task types speaks at least one phrasing the real tasks use.
      for (const [type, templates] of Object.entries(INSTRUCTION_TEMPLATES)) {
        const spoken = templates.filter((t) =>
          transcripts.some((x) => sameShape(t, x.instruction)),
        );
        expect(spoken.length, type).toBeGreaterThan(0);
      }
    });
  },
);

/** Whether an instruction fits a template, word for word outside the slots. */
function sameShape(template: string, instruction: string): boolean {
  const source = template.replace(/[.]/g, '\\.').replace(/\{[orl]\}/g, '[a-z]+');
  return new RegExp(`^${source}$`).test(instruction);
}
