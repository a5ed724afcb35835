import { describe, expect, it } from 'vitest';
import { generateScene, type Scene } from './scene.ts';
import { canContain, hasAffordance, ROOM_TYPES, ROOMS } from './vocabulary.ts';

const scenes: Scene[] = ROOM_TYPES.flatMap((room) =>
  Array.from({ length: 50 }, (_, seed) => generateScene({ room, seed })),
);

describe('household scene generator', () => {
  it('is deterministic given the room and seed, and seeds differ', () => {
    expect(generateScene({ room: 'kitchen', seed: 3 })).toEqual(
      generateScene({ room: 'kitchen', seed: 3 }),
    );
    expect(generateScene({ room: 'kitchen', seed: 4 })).not.toEqual(
      generateScene({ room: 'kitchen', seed: 3 }),
    );
  });

  it('numbers receptacles and objects per type from 1, with unique names', () => {
    for (const scene of scenes) {
      for (const list of [scene.receptacles, scene.objects]) {
        const names = list.map((x) => x.name);
        expect(new Set(names).size).toBe(names.length);
        const perType = new Map<string, number[]>();
        for (const { name, type } of list) {
          expect(name).toMatch(new RegExp(`^${type} \\d+$`));
          perType.set(type, [...(perType.get(type) ?? []), Number(name.split(' ')[1])]);
        }
        for (const numbers of perType.values()) {
          expect(numbers.sort((a, b) => a - b)).toEqual(numbers.map((_, i) => i + 1));
        }
      }
    }
  });

  it('puts every object somewhere that can hold it (floor lamps beside furniture)', () => {
    for (const scene of scenes) {
      const types = new Map(scene.receptacles.map((r) => [r.name, r.type]));
      for (const o of scene.objects) {
        const where = types.get(o.receptacle);
        expect(where, `${o.name} in ${o.receptacle}`).toBeDefined();
        if (o.onFloor) expect(o.type).toBe('floorlamp');
        else expect(canContain(where as string, o.type), `${o.name} in ${o.receptacle}`).toBe(true);
      }
    }
  });

  it("furnishes each room after ALFWorld's: fridge, microwave and sink in kitchens, a bed in bedrooms, a toilet in bathrooms", () => {
    const has = (scene: Scene, type: string) => scene.receptacles.some((r) => r.type === type);
    for (const scene of scenes) {
      const required = ROOMS[scene.room].furniture.filter((f) => f.chance === 1);
      for (const { type } of required) expect(has(scene, type), `${scene.room} ${type}`).toBe(true);
      expect(scene.objects.length).toBeGreaterThan(3);
    }
    const kitchens = scenes.filter((s) => s.room === 'kitchen');
    for (const type of ['fridge', 'microwave', 'sinkbasin', 'cabinet']) {
      expect(kitchens.every((s) => has(s, type))).toBe(true);
    }
    expect(scenes.filter((s) => s.room === 'bedroom').every((s) => has(s, 'bed'))).toBe(true);
    expect(scenes.filter((s) => s.room === 'bathroom').every((s) => has(s, 'toilet'))).toBe(true);
  });

  it('has doors on fridges, microwaves and safes, on most cabinets and drawers, and nowhere else', () => {
    const all = scenes.flatMap((s) => s.receptacles);
    for (const r of all) {
      if (['fridge', 'microwave', 'safe'].includes(r.type)) expect(r.openable).toBe(true);
      else if (!['cabinet', 'drawer'].includes(r.type)) expect(r.openable, r.name).toBe(false);
    }
    const cabinets = all.filter((r) => r.type === 'cabinet');
    const withDoors = cabinets.filter((r) => r.openable).length / cabinets.length;
    expect(withDoors).toBeGreaterThan(0.8);
    expect(withDoors).toBeLessThan(1);
  });

  it('gives objects the affordances of the PDDL domain', () => {
    expect(hasAffordance('apple', 'heat')).toBe(true);
    expect(hasAffordance('lettuce', 'heat')).toBe(false);
    expect(hasAffordance('mug', 'container')).toBe(true);
    expect(hasAffordance('desklamp', 'light')).toBe(true);
    expect(hasAffordance('desklamp', 'pickup')).toBe(false);
    expect(hasAffordance('knife', 'blade')).toBe(true);
    expect(hasAffordance('tomato', 'slice')).toBe(true);
    expect(hasAffordance('soapbar', 'clean')).toBe(true);
    expect(hasAffordance('winebottle', 'cool')).toBe(true);
  });
});
