/**
 * Offline variations of a household task in the same room: another object, another target
 * receptacle (or lamp), or another task type, always a goal the room supports and does not
 * already meet, so the real household runs it and it can be solved.
 *
 * What it reads: the parent's own room (`generateScene` of the spec's scene id), as the env's task
 * drawer does when it poses a seed task, and nothing of any other room. Variations name object and
 * receptacle types only, as every household instruction does, never where things are, and the
 * synthetic env never sees the room. This is more than the webshop mutator may read (it sees
 * only goals, never the catalog): a room's task needs to know which objects are in it.
 */
import { TaskError } from '../../core/errors.ts';
import {
  goalReached,
  type HouseholdGoal,
  objectsNeeded,
  TASK_TYPES,
  treatmentOf,
  writeInstruction,
} from '../../envs/household/goals.ts';
import { generateScene, type Scene } from '../../envs/household/scene.ts';
import { type HouseholdTaskSpec, householdSpec } from '../../envs/household/tasks.ts';
import { APPLIANCES, canContain, hasAffordance } from '../../envs/household/vocabulary.ts';
import { HouseholdWorld } from '../../envs/household/world.ts';
import { generatedTask } from '../task-identity.ts';
import type { TaskGenerator } from './generator.ts';
import { type Candidate, takeVaried } from './take-varied.ts';

export const householdMutator: TaskGenerator = {
  name: 'household-mutator',
  async generate({ parent, count, pool, rng }) {
    let spec: HouseholdTaskSpec;
    try {
      spec = householdSpec(parent);
    } catch (error) {
      if (error instanceof TaskError)
        return { tasks: [], warnings: [`household-mutator: ${error.message}`] };
      throw error;
    }
    const candidates = supportedGoals(generateScene(spec.scene)).flatMap(
      (goal): Candidate<HouseholdGoal>[] => {
        const kind = changeKind(spec.goal, goal);
        return kind ? [{ kind, change: goal }] : [];
      },
    );
    const build = (goal: HouseholdGoal) =>
      generatedTask(parent, writeInstruction(goal, rng), { scene: { ...spec.scene }, goal });
    return { tasks: takeVaried(candidates, count, build, pool, rng), warnings: [] };
  },
};

/**
 * Every goal the scene supports and does not meet at the start, by the env's rules for seed
 * tasks: the objects exist (two for pick-two) and can be picked up and treated, the appliance is
 * there, the target can hold them and is not the treatment's own appliance; a lamp for look-at.
 */
export function supportedGoals(scene: Scene): HouseholdGoal[] {
  const counts = new Map<string, number>();
  for (const o of scene.objects) counts.set(o.type, (counts.get(o.type) ?? 0) + 1);
  const portable = [...counts.keys()].filter((t) => hasAffordance(t, 'pickup'));
  const lights = [...counts.keys()].filter((t) => hasAffordance(t, 'light'));
  const receptacles = [...new Set(scene.receptacles.map((r) => r.type))];
  const goals: HouseholdGoal[] = [];
  for (const type of TASK_TYPES) {
    if (type === 'look_at_obj_in_light') {
      for (const object of portable)
        for (const light of lights) goals.push({ type, object, light });
      continue;
    }
    const treatment = treatmentOf(type);
    const appliance = treatment && APPLIANCES[treatment];
    if (appliance && !receptacles.includes(appliance)) continue;
    for (const object of portable) {
      if (treatment && !hasAffordance(object, treatment)) continue;
      if ((counts.get(object) ?? 0) < objectsNeeded({ type, object, receptacle: '' })) continue;
      for (const receptacle of receptacles) {
        if (receptacle !== appliance && canContain(receptacle, object)) {
          goals.push({ type, object, receptacle });
        }
      }
    }
  }
  const start = HouseholdWorld.fromScene(scene);
  return goals.filter((goal) => !goalReached(start, goal));
}

/**
 * How `goal` varies `parent` in one step, or undefined when it is the same goal or differs in
 * more than one way. A change between placing and looking-at-in-light changes the target's kind
 * (receptacle or lamp) with the type, so it only has to keep the object.
 */
function changeKind(parent: HouseholdGoal, goal: HouseholdGoal): string | undefined {
  const target = (g: HouseholdGoal) => ('receptacle' in g ? g.receptacle : g.light);
  const looks = (g: HouseholdGoal) => g.type === 'look_at_obj_in_light';
  if (parent.type !== goal.type) {
    const targetKept = target(parent) === target(goal) || looks(parent) !== looks(goal);
    return parent.object === goal.object && targetKept ? 'type' : undefined;
  }
  if (parent.object !== goal.object) return target(parent) === target(goal) ? 'object' : undefined;
  return target(parent) !== target(goal) ? 'target' : undefined;
}
