/**
 * A planner with full knowledge of the world: the shortest command sequence from a state to the
 * goal. It proves generated tasks solvable (tests run each plan through the world) and is the
 * scripted expert's plan.
 *
 * Every command costs one step, so a plan's length is its number of `go to`s, `open`s, `take`s,
 * treatments and `move`s. The planner tries every way to pick the objects (which instances, in
 * which order) and the target receptacle or lamp, and, when the hand holds something useless,
 * each place on the way to put it down first; the ways are few (a scene has at most three of a
 * type), so it enumerates them. Tests check it against breadth-first search on small rooms.
 */

import {
  goalReached,
  type HouseholdGoal,
  isTreatedFor,
  objectsNeeded,
  treatmentOf,
} from './goals.ts';
import { APPLIANCES, canContain, type Treatment } from './vocabulary.ts';
import type { HouseholdWorld, ObjectState } from './world.ts';

/** Commands that reach `goal` from the world's current state; [] if it is reached already. */
export function solve(world: HouseholdWorld, goal: HouseholdGoal): string[] | undefined {
  if (goalReached(world, goal)) return [];
  const held = world.holding;
  const start = Route.startingFrom(world);
  if (held === undefined || held.type === goal.object) return bestPlan(world, goal, start, held);
  // Something useless in hand: put it down where the rest of the plan goes anyway, if it fits.
  let best: string[] | undefined;
  for (const spot of dropSpots(world, goal, held)) {
    const route = start.clone();
    route.place(held.name, spot);
    const plan = bestPlan(world, goal, route, undefined);
    if (plan && (!best || plan.length < best.length)) best = plan;
  }
  return best;
}

/** The shortest plan from `route` on, with the hand free or holding `held`, a goal object. */
function bestPlan(
  world: HouseholdWorld,
  goal: HouseholdGoal,
  route: Route,
  held: ObjectState | undefined,
): string[] | undefined {
  const objects = [...world.allObjects()].filter((o) => o.type === goal.object);
  let best: Route | undefined;
  const consider = (candidate: Route) => {
    if (!best || candidate.length < best.length) best = candidate;
  };

  if (goal.type === 'look_at_obj_in_light') {
    const lamps = [...world.allObjects()].filter((o) => o.type === goal.light);
    for (const o of held ? [held] : objects) {
      for (const lamp of lamps) {
        const r = route.clone();
        if (o !== held) r.take(o);
        r.standAtLamp(lamp);
        consider(r);
      }
    }
    return best?.commands;
  }

  const treatment = treatmentOf(goal.type);
  const needed = objectsNeeded(goal);
  const targets = world.scene.receptacles.filter((r) => r.type === goal.receptacle);
  for (const target of targets) {
    const inTarget = objects.filter(
      (o) => o.receptacle === target.name && !o.onFloor && isTreatedFor(goal, o),
    );
    const missing = needed - inTarget.length;
    const fetchable = objects.filter((o) => !inTarget.includes(o));
    for (const order of orderings(fetchable, missing, held)) {
      const r = route.clone();
      for (const o of order) {
        if (o !== held) r.take(o);
        if (treatment && !isTreatedFor(goal, o)) r.treat(treatment, o.name);
        r.place(o.name, target.name);
      }
      consider(r);
    }
  }
  return best?.commands;
}

/** Sequences of `k` distinct objects; a held object must come first (the hand is full). */
function orderings(
  objects: readonly ObjectState[],
  k: number,
  held: ObjectState | undefined,
): ObjectState[][] {
  if (k <= 0) return [[]];
  const firsts = held && objects.includes(held) ? [held] : objects;
  return firsts.flatMap((first) =>
    orderings(
      objects.filter((o) => o !== first),
      k - 1,
      undefined,
    ).map((rest) => [first, ...rest]),
  );
}

/**
 * Where a useless carried object may go: here, where the goal's objects or targets are (the plan
 * passes by), or the first receptacle without a door that takes it.
 */
function dropSpots(world: HouseholdWorld, goal: HouseholdGoal, held: ObjectState): string[] {
  const fits = (name: string | undefined) => {
    const r = name === undefined ? undefined : world.receptacle(name);
    return r !== undefined && canContain(r.type, held.type);
  };
  const spots = new Set<string>();
  if (fits(world.location)) spots.add(world.location as string);
  for (const o of world.allObjects()) {
    if (o.type === goal.object && fits(o.receptacle)) spots.add(o.receptacle as string);
  }
  for (const r of world.scene.receptacles) {
    if ('receptacle' in goal && r.type === goal.receptacle && fits(r.name)) spots.add(r.name);
  }
  const plain = world.scene.receptacles.find((r) => !r.openable && fits(r.name));
  if (plain) spots.add(plain.name);
  return [...spots];
}

/** A plan under construction: the commands so far, and where the agent and the doors will be. */
class Route {
  private constructor(
    private readonly world: HouseholdWorld,
    readonly commands: string[],
    private at: string | undefined,
    private readonly opened: Set<string>,
  ) {}

  static startingFrom(world: HouseholdWorld): Route {
    const opened = world.scene.receptacles.filter((r) => world.isOpen(r.name)).map((r) => r.name);
    return new Route(world, [], world.location, new Set(opened));
  }

  get length(): number {
    return this.commands.length;
  }

  clone(): Route {
    return new Route(this.world, [...this.commands], this.at, new Set(this.opened));
  }

  /** Go to `object`'s receptacle, open it if need be, and take the object. */
  take(object: ObjectState): void {
    const receptacle = object.receptacle as string;
    this.reach(receptacle);
    this.commands.push(`take ${object.name} from ${receptacle}`);
  }

  /** Go to `receptacle`, open it if need be, and put the carried `object` there. */
  place(object: string, receptacle: string): void {
    this.reach(receptacle);
    this.commands.push(`move ${object} to ${receptacle}`);
  }

  /** Clean, heat or cool the carried object at the nearest fitting appliance. */
  treat(treatment: Treatment, object: string): void {
    const appliances = this.world.scene.receptacles.filter((r) => r.type === APPLIANCES[treatment]);
    const appliance = appliances.find((r) => r.name === this.at) ?? appliances[0];
    if (!appliance) throw new Error(`no ${APPLIANCES[treatment]} in the room to ${treatment} with`);
    this.goTo(appliance.name);
    this.commands.push(`${treatment} ${object} with ${appliance.name}`);
  }

  /** Go where the lamp stands and switch it on unless it is on. */
  standAtLamp(lamp: ObjectState): void {
    this.goTo(lamp.receptacle as string);
    if (!lamp.on) this.commands.push(`use ${lamp.name}`);
  }

  private goTo(receptacle: string): void {
    if (this.at === receptacle) return;
    this.commands.push(`go to ${receptacle}`);
    this.at = receptacle;
  }

  private reach(receptacle: string): void {
    this.goTo(receptacle);
    if (this.world.receptacle(receptacle)?.openable && !this.opened.has(receptacle)) {
      this.commands.push(`open ${receptacle}`);
      this.opened.add(receptacle);
    }
  }
}
