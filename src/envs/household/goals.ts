/**
 * ALFWorld's six task types: what each asks, how it is phrased, and when it is done.
 *
 * Goals name types, never instances (`put a clean lettuce in diningtable.`): any lettuce in any
 * dining table will do, as in ALFWorld's PDDL goals. The instruction templates are ours, written to
 * produce every phrasing seen in ALFWorld's released trajectories (checked in `goals.test.ts`).
 */

import type { Rng } from '../../core/rng.ts';
import type { Treatment } from './vocabulary.ts';
import type { HouseholdWorld, ObjectState } from './world.ts';

export const TASK_TYPES = [
  'pick_and_place',
  'pick_two_obj_and_place',
  'look_at_obj_in_light',
  'pick_clean_then_place',
  'pick_heat_then_place',
  'pick_cool_then_place',
] as const;

export type TaskType = (typeof TASK_TYPES)[number];

export type PlacementTaskType = Exclude<TaskType, 'look_at_obj_in_light'>;

/**
 * A task's goal, by types: placement tasks put one `object` (two for `pick_two_obj_and_place`,
 * cleaned, heated or cooled first where the type says so) in a `receptacle`; look-at-in-light
 * tasks hold an `object` where a `light` (desklamp, floorlamp) is switched on.
 */
export type HouseholdGoal =
  | { type: PlacementTaskType; object: string; receptacle: string }
  | { type: 'look_at_obj_in_light'; object: string; light: string };

/** The treatment a task type asks for before placing, if any. */
export function treatmentOf(type: TaskType): Treatment | undefined {
  if (type === 'pick_clean_then_place') return 'clean';
  if (type === 'pick_heat_then_place') return 'heat';
  if (type === 'pick_cool_then_place') return 'cool';
  return undefined;
}

/** How many objects the goal needs in one receptacle. */
export function objectsNeeded(goal: HouseholdGoal): number {
  return goal.type === 'pick_two_obj_and_place' ? 2 : 1;
}

/** Whether an object has the state the goal asks for (clean, hot, cool, or nothing special). */
export function isTreatedFor(goal: HouseholdGoal, o: ObjectState): boolean {
  const treatment = treatmentOf(goal.type);
  if (treatment === 'clean') return o.clean;
  if (treatment === 'heat') return o.hot;
  if (treatment === 'cool') return o.cool;
  return true;
}

/**
 * ALFWorld's goal conditions. Placement: enough fitting objects in one receptacle of the goal's
 * type. Look-at-in-light: carrying a fitting object at the place of a lamp of the goal's type
 * that is on. (ALFWorld counts a lamp once used as on for good; ours can be switched off again.)
 */
export function goalReached(world: HouseholdWorld, goal: HouseholdGoal): boolean {
  if (goal.type === 'look_at_obj_in_light') {
    const held = world.holding;
    if (held?.type !== goal.object || world.location === undefined) return false;
    for (const o of world.allObjects()) {
      if (o.type === goal.light && o.on && o.receptacle === world.location) return true;
    }
    return false;
  }
  const perReceptacle = new Map<string, number>();
  for (const o of world.allObjects()) {
    if (o.type !== goal.object || o.receptacle === undefined || o.onFloor) continue;
    if (world.receptacle(o.receptacle)?.type !== goal.receptacle || !isTreatedFor(goal, o)) {
      continue;
    }
    const count = (perReceptacle.get(o.receptacle) ?? 0) + 1;
    if (count >= objectsNeeded(goal)) return true;
    perReceptacle.set(o.receptacle, count);
  }
  return false;
}

/** Our phrasings; `{o}` is the object type, `{r}` the receptacle type, `{l}` the lamp type. */
export const INSTRUCTION_TEMPLATES: Readonly<Record<TaskType, readonly string[]>> = {
  pick_and_place: ['put a {o} in {r}.', 'put some {o} on {r}.', 'find some {o} and put it in {r}.'],
  pick_two_obj_and_place: ['put two {o} in {r}.', 'find two {o} and put them in {r}.'],
  look_at_obj_in_light: ['look at {o} under the {l}.', 'examine the {o} with the {l}.'],
  pick_clean_then_place: ['put a clean {o} in {r}.', 'clean some {o} and put it in {r}.'],
  pick_heat_then_place: ['put a hot {o} in {r}.', 'heat some {o} and put it in {r}.'],
  pick_cool_then_place: ['put a cool {o} in {r}.', 'cool some {o} and put it in {r}.'],
};

/** The goal in one of its task type's phrasings, e.g. `heat some egg and put it in garbagecan.` */
export function writeInstruction(goal: HouseholdGoal, rng: Rng): string {
  const template = rng.pick(INSTRUCTION_TEMPLATES[goal.type]);
  return template
    .replace('{o}', goal.object)
    .replace('{r}', 'receptacle' in goal ? goal.receptacle : '')
    .replace('{l}', 'light' in goal ? goal.light : '');
}

const TEMPLATE_PATTERNS = Object.entries(INSTRUCTION_TEMPLATES).flatMap(([type, templates]) =>
  templates.map((template) => {
    const slots = [...template.matchAll(/\{([orl])\}/g)].map((m) => m[1] as string);
    const source = template.replace(/[.]/g, '\\.').replace(/\{[orl]\}/g, '([a-z]+)');
    return { type: type as TaskType, slots, pattern: new RegExp(`^${source}$`) };
  }),
);

/**
 * The goal an instruction in one of our phrasings states (`put a clean lettuce in diningtable.`),
 * or undefined for any other text. Every instruction {@link writeInstruction} writes parses back.
 */
export function parseInstruction(instruction: string): HouseholdGoal | undefined {
  const text = instruction.trim().toLowerCase();
  for (const { type, slots, pattern } of TEMPLATE_PATTERNS) {
    const match = pattern.exec(text);
    if (!match) continue;
    const value = (slot: string) => match[slots.indexOf(slot) + 1] as string;
    return type === 'look_at_obj_in_light'
      ? { type, object: value('o'), light: value('l') }
      : { type, object: value('o'), receptacle: value('r') };
  }
  return undefined;
}
