import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { goalReached, type HouseholdGoal } from './goals.ts';
import type { Scene } from './scene.ts';
import { solve } from './solver.ts';
import { HouseholdWorld } from './world.ts';

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
  ],
  objects: [
    { name: 'mug 1', type: 'mug', receptacle: 'cabinet 1', onFloor: false },
    { name: 'mug 2', type: 'mug', receptacle: 'fridge 1', onFloor: false },
    { name: 'mug 3', type: 'mug', receptacle: 'countertop 1', onFloor: false },
    { name: 'apple 1', type: 'apple', receptacle: 'countertop 1', onFloor: false },
    { name: 'desklamp 1', type: 'desklamp', receptacle: 'sidetable 1', onFloor: false },
  ],
};

const goals: HouseholdGoal[] = [
  { type: 'pick_and_place', object: 'mug', receptacle: 'sidetable' },
  { type: 'pick_two_obj_and_place', object: 'mug', receptacle: 'cabinet' },
  { type: 'look_at_obj_in_light', object: 'apple', light: 'desklamp' },
  { type: 'pick_clean_then_place', object: 'apple', receptacle: 'fridge' },
  { type: 'pick_heat_then_place', object: 'mug', receptacle: 'countertop' },
  { type: 'pick_cool_then_place', object: 'apple', receptacle: 'microwave' },
];

/** Commands that can change the state (looking, examining and closing never help). */
const MOVES = /^(go to|open|take|move|heat|cool|clean|use) /;

/** The length of the shortest command sequence to the goal, by breadth-first search. */
function shortestByBfs(start: HouseholdWorld, goal: HouseholdGoal): number {
  const key = (w: HouseholdWorld) =>
    JSON.stringify([
      w.location,
      w.holding?.name,
      scene.receptacles.map((r) => w.isOpen(r.name)),
      [...w.allObjects()],
    ]);
  let frontier = [start];
  const seen = new Set([key(start)]);
  for (let depth = 0; frontier.length > 0; depth++) {
    if (frontier.some((w) => goalReached(w, goal))) return depth;
    const next: HouseholdWorld[] = [];
    for (const world of frontier) {
      for (const command of world.admissibleCommands().filter((c) => MOVES.test(c))) {
        const after = world.clone();
        after.execute(command);
        const k = key(after);
        if (!seen.has(k)) {
          seen.add(k);
          next.push(after);
        }
      }
    }
    frontier = next;
  }
  return Number.POSITIVE_INFINITY;
}

const run = (world: HouseholdWorld, commands: readonly string[]) => {
  for (const command of commands)
    expect(world.execute(command), command).toMatchObject({ ok: true });
};

describe('household solver', () => {
  it.each(goals)('finds a shortest plan: $type', (goal) => {
    const world = HouseholdWorld.fromScene(scene);
    const plan = solve(world, goal) ?? [];
    expect(plan.length).toBe(shortestByBfs(world, goal));
    run(world, plan);
    expect(goalReached(world, goal)).toBe(true);
  });

  it('plans from any state: after random commands, holding the wrong thing or half done', () => {
    const rng = new Rng(5);
    for (const goal of goals) {
      for (let trial = 0; trial < 20; trial++) {
        const world = HouseholdWorld.fromScene(scene);
        for (let t = 0; t < 6; t++) world.execute(rng.pick(world.admissibleCommands()));
        const plan = solve(world, goal);
        expect(plan).toBeDefined();
        if (trial < 3) expect(plan?.length).toBe(shortestByBfs(world, goal));
        run(world, plan ?? []);
        expect(goalReached(world, goal)).toBe(true);
      }
    }
  });

  it('returns no commands when the goal is already reached', () => {
    const world = HouseholdWorld.fromScene(scene);
    expect(
      solve(world, { type: 'pick_and_place', object: 'mug', receptacle: 'countertop' }),
    ).toEqual([]);
  });
});
