/**
 * The seeded `keys-and-doors` task set and its splits. Task i is always the same: even indices
 * ask to bring a thing to a room, odd ones to put it in a container, and
 * `new Rng(i).fork('keys-and-doors-task')` draws a house and a goal in it that takes at least
 * {@link MIN_PLAN} commands. Indices below {@link TEST_TASK_COUNT} are the test split, the rest
 * train; each task has its own house.
 */

import { ConfigError, TaskError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import type { TaskSplit } from '../env.ts';
import { KeysAndDoorsGame, type KeysGoal } from './game.ts';
import { generateLayout, type Layout } from './layout.ts';
import { solve } from './solver.ts';

/** The env family name. */
export const KEYS_AND_DOORS = 'keys-and-doors';

/** Task indices [0, TEST_TASK_COUNT) are the test split. */
export const TEST_TASK_COUNT = 500;

/** Train tasks handed out when the caller does not say how many. */
export const DEFAULT_TRAIN_TASK_COUNT = 1000;

/** The fewest commands a knowing player needs for a task's goal. */
export const MIN_PLAN = 6;
/** The most; the step limit leaves room for detours beyond it. */
const MAX_PLAN = 30;

/** `Task.spec` of keys-and-doors tasks: the house to build and the goal. */
export interface KeysAndDoorsSpec {
  layoutSeed: number;
  goal: KeysGoal;
}

/** Task `index` (a whole number ≥ 0). */
export function keysAndDoorsTask(index: number): Task {
  if (!Number.isInteger(index) || index < 0) {
    throw new ConfigError(`keys-and-doors task index must be a whole number ≥ 0, got ${index}.`);
  }
  const rng = new Rng(index).fork('keys-and-doors-task');
  const kind = index % 2 === 0 ? 'bring' : 'put';
  for (;;) {
    const layoutSeed = rng.uint32();
    const layout = generateLayout(layoutSeed);
    const goal = drawGoal(kind, layout, rng);
    const plan = goal && solve(new KeysAndDoorsGame(layout), goal);
    if (!goal || !plan || plan.length < MIN_PLAN || plan.length > MAX_PLAN) continue;
    const spec: KeysAndDoorsSpec = { layoutSeed, goal };
    return {
      id: `${KEYS_AND_DOORS}/${index}`,
      env: KEYS_AND_DOORS,
      instruction: writeInstruction(goal, rng),
      spec: { ...spec },
      origin: 'seed',
    };
  }
}

/** The first `count` tasks of a split (test: indices 0.., train: TEST_TASK_COUNT..). */
export function keysAndDoorsTasks(split: TaskSplit, count?: number): Task[] {
  const wanted = count ?? (split === 'test' ? TEST_TASK_COUNT : DEFAULT_TRAIN_TASK_COUNT);
  if (split === 'test' && wanted > TEST_TASK_COUNT) {
    throw new ConfigError(
      `the keys-and-doors test split has ${TEST_TASK_COUNT} tasks; asked for ${wanted}. Use the train split for more.`,
    );
  }
  const first = split === 'test' ? 0 : TEST_TASK_COUNT;
  return Array.from({ length: wanted }, (_, k) => keysAndDoorsTask(first + k));
}

/** A task's keys-and-doors spec, or a {@link TaskError} saying why this env cannot run it. */
export function keysAndDoorsSpec(task: Task): KeysAndDoorsSpec {
  if (task.env !== KEYS_AND_DOORS) {
    throw new TaskError(`task ${task.id} is for env "${task.env}", not "${KEYS_AND_DOORS}".`);
  }
  const spec = task.spec as Partial<KeysAndDoorsSpec> | undefined;
  if (typeof spec?.layoutSeed !== 'number' || !spec.goal) {
    throw new TaskError(
      `task ${task.id} has no keys-and-doors spec (layoutSeed and goal); a generated task without a spec can only run in a synthetic env.`,
    );
  }
  return spec as KeysAndDoorsSpec;
}

/**
 * A goal of `kind` in the house: a thing, preferably one behind a locked door, to leave in
 * another room or put in a container it is not in.
 */
function drawGoal(kind: KeysGoal['kind'], layout: Layout, rng: Rng): KeysGoal | undefined {
  const game = new KeysAndDoorsGame(layout);
  const things = layout.items.filter((i) => i.metal === undefined);
  const thing = rng.weighted(
    things,
    things.map((t) => ((layout.region[game.roomOf(t.place) ?? ''] ?? 0) > 0 ? 4 : 1)),
  );
  if (kind === 'bring') {
    const rooms = layout.rooms.filter((r) => r !== game.roomOf(thing.place));
    return { kind, thing: thing.name, room: rng.pick(rooms) };
  }
  const containers = layout.containers.filter(
    (c) => !('container' in thing.place && thing.place.container === c.name),
  );
  if (containers.length === 0) return undefined;
  return { kind, thing: thing.name, container: rng.pick(containers).name };
}

/** The goal in words. */
function writeInstruction(goal: KeysGoal, rng: Rng): string {
  if (goal.kind === 'bring') {
    return rng.pick([
      `Bring the ${goal.thing} to the ${goal.room} and leave it there.`,
      `Leave the ${goal.thing} in the ${goal.room}.`,
      `Take the ${goal.thing} to the ${goal.room} and put it down.`,
    ]);
  }
  return rng.pick([
    `Put the ${goal.thing} in the ${goal.container}.`,
    `Find the ${goal.thing} and put it in the ${goal.container}.`,
    `Store the ${goal.thing} in the ${goal.container}.`,
  ]);
}
