/**
 * The seeded `household` task set and its splits.
 *
 * Task i is always the same: its type is the i-th of the six in turn (so any run of six tasks
 * covers every type), and `new Rng(i).fork('household-task')` draws a fitting room, a scene seed
 * and a goal that scene supports and does not already meet. The first {@link TEST_TASK_COUNT}
 * indices are the test split and the rest train; scenes are drawn per task, so the two splits
 * never share a room layout.
 */

import { ConfigError, TaskError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import type { TaskSplit } from '../env.ts';
import {
  goalReached,
  type HouseholdGoal,
  objectsNeeded,
  TASK_TYPES,
  type TaskType,
  treatmentOf,
  writeInstruction,
} from './goals.ts';
import { generateScene, type Scene, type SceneId } from './scene.ts';
import { APPLIANCES, canContain, hasAffordance, type RoomType } from './vocabulary.ts';
import { HouseholdWorld } from './world.ts';

/** Task indices [0, TEST_TASK_COUNT) are the test split. */
export const TEST_TASK_COUNT = 500;

/** Train tasks handed out when the caller does not say how many. */
export const DEFAULT_TRAIN_TASK_COUNT = 1000;

/** `Task.spec` of household tasks: the scene to build and the goal to reach in it. */
export interface HouseholdTaskSpec {
  scene: SceneId;
  goal: HouseholdGoal;
}

/** Rooms each task type is set in, as in ALFWorld (nobody microwaves things in the bedroom). */
const ROOMS_FOR: Readonly<Record<TaskType, readonly RoomType[]>> = {
  pick_and_place: ['kitchen', 'livingroom', 'bedroom', 'bathroom'],
  pick_two_obj_and_place: ['kitchen', 'livingroom', 'bedroom', 'bathroom'],
  look_at_obj_in_light: ['livingroom', 'bedroom'],
  pick_clean_then_place: ['kitchen', 'bathroom'],
  pick_heat_then_place: ['kitchen'],
  pick_cool_then_place: ['kitchen'],
};

/** Scenes tried before giving up on an index; in practice one or two are enough. */
const MAX_SCENE_ATTEMPTS = 100;

/** Task `index` (a whole number ≥ 0). */
export function householdTask(index: number): Task {
  if (!Number.isInteger(index) || index < 0) {
    throw new ConfigError(`household task index must be a whole number ≥ 0, got ${index}.`);
  }
  const type = TASK_TYPES[index % TASK_TYPES.length] as TaskType;
  const rng = new Rng(index).fork('household-task');
  for (let attempt = 0; attempt < MAX_SCENE_ATTEMPTS; attempt++) {
    const id: SceneId = { room: rng.pick(ROOMS_FOR[type]), seed: rng.uint32() };
    const goal = drawGoal(type, generateScene(id), rng);
    if (goal) {
      const spec: HouseholdTaskSpec = { scene: id, goal };
      return {
        id: `household/${index}`,
        env: 'household',
        instruction: writeInstruction(goal, rng),
        spec: { ...spec },
        origin: 'seed',
      };
    }
  }
  throw new Error(`household task ${index}: no scene supports a ${type} goal; this is a bug.`);
}

/**
 * The first `count` tasks of a split: test is indices 0..count-1 (default all
 * {@link TEST_TASK_COUNT}), train is indices TEST_TASK_COUNT.. (default
 * {@link DEFAULT_TRAIN_TASK_COUNT}).
 */
export function householdTasks(split: TaskSplit, count?: number): Task[] {
  const wanted = count ?? (split === 'test' ? TEST_TASK_COUNT : DEFAULT_TRAIN_TASK_COUNT);
  if (split === 'test' && wanted > TEST_TASK_COUNT) {
    throw new ConfigError(
      `the household test split has ${TEST_TASK_COUNT} tasks; asked for ${wanted}. Use the train split for more.`,
    );
  }
  const first = split === 'test' ? 0 : TEST_TASK_COUNT;
  return Array.from({ length: wanted }, (_, k) => householdTask(first + k));
}

/**
 * The household spec of a task (its scene and goal), or a {@link TaskError} saying why the task
 * cannot run in the real household (another env, or a generated task without a spec).
 */
export function householdSpec(task: Task): HouseholdTaskSpec {
  if (task.env !== 'household') {
    throw new TaskError(`task ${task.id} is for env "${task.env}", not "household".`);
  }
  const spec = task.spec as Partial<HouseholdTaskSpec> | undefined;
  if (!spec?.goal || !spec.scene) {
    throw new TaskError(
      `task ${task.id} has no household spec (scene and goal); a generated task without a spec can only run in a synthetic env.`,
    );
  }
  return spec as HouseholdTaskSpec;
}

/**
 * A goal of `type` that `scene` supports and does not already meet: the objects exist (two for
 * pick-two) and can be picked up and treated, the appliance is there, the target receptacle can
 * hold them and is not the treatment's own appliance. Undefined when the scene has none.
 */
function drawGoal(type: TaskType, scene: Scene, rng: Rng): HouseholdGoal | undefined {
  const counts = new Map<string, number>();
  for (const o of scene.objects) counts.set(o.type, (counts.get(o.type) ?? 0) + 1);
  const present = [...counts.keys()];
  const portable = present.filter((t) => hasAffordance(t, 'pickup'));

  if (type === 'look_at_obj_in_light') {
    const lights = present.filter((t) => hasAffordance(t, 'light'));
    if (lights.length === 0 || portable.length === 0) return undefined;
    return { type, object: rng.pick(portable), light: rng.pick(lights) };
  }

  const receptacleTypes = [...new Set(scene.receptacles.map((r) => r.type))];
  const treatment = treatmentOf(type);
  const appliance = treatment && APPLIANCES[treatment];
  if (appliance && !receptacleTypes.includes(appliance)) return undefined;
  const start = HouseholdWorld.fromScene(scene);
  const options = portable.flatMap((object) =>
    (treatment === undefined || hasAffordance(object, treatment)) &&
    (counts.get(object) ?? 0) >= objectsNeeded({ type, object, receptacle: '' })
      ? receptacleTypes
          .filter((receptacle) => receptacle !== appliance && canContain(receptacle, object))
          .map((receptacle): HouseholdGoal => ({ type, object, receptacle }))
          .filter((goal) => !goalReached(start, goal))
      : [],
  );
  if (options.length === 0) return undefined;
  // Object type first, then receptacle, so types with many targets are not favoured.
  const object = rng.pick([...new Set(options.map((g) => g.object))]);
  return rng.pick(options.filter((g) => g.object === object));
}
