/**
 * The seeded `booking` task set and its splits. Task i is always the same:
 * `new Rng(i).fork('booking-task')` draws an inventory seed and a request in it whose room is
 * not simply the cheapest listed (a cheaper room lacks what is asked). Requests ask for a
 * feature (half of them: only the room page shows features), a room kind, or both, in turn.
 * Indices below {@link TEST_TASK_COUNT} are the test split, the rest train.
 */

import { ConfigError, TaskError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import type { TaskSplit } from '../env.ts';
import { type BookingGoal, bestRoom, matching, writeInstruction } from './goals.ts';
import {
  availableRooms,
  generateInventory,
  type Inventory,
  roomTotal,
  type Stay,
} from './inventory.ts';
import { GUEST_FAMILY, GUEST_GIVEN, MONTH_DAYS } from './words.ts';

/** The env family name. */
export const BOOKING = 'booking';

/** Task indices [0, TEST_TASK_COUNT) are the test split. */
export const TEST_TASK_COUNT = 500;

/** Train tasks handed out when the caller does not say how many. */
export const DEFAULT_TRAIN_TASK_COUNT = 1000;

/** `Task.spec` of booking tasks: the inventory to build and the request. */
export interface BookingSpec {
  inventorySeed: number;
  goal: BookingGoal;
}

/** What the i-th request asks the room to be, in turn. */
const ASKS = ['feature', 'kind', 'feature', 'both'] as const;

/** Task `index` (a whole number ≥ 0). */
export function bookingTask(index: number): Task {
  if (!Number.isInteger(index) || index < 0) {
    throw new ConfigError(`booking task index must be a whole number ≥ 0, got ${index}.`);
  }
  const rng = new Rng(index).fork('booking-task');
  const ask = ASKS[index % ASKS.length] as (typeof ASKS)[number];
  for (;;) {
    const inventorySeed = rng.uint32();
    const goal = drawGoal(ask, generateInventory(inventorySeed), rng);
    if (!goal) continue;
    const spec: BookingSpec = { inventorySeed, goal };
    return {
      id: `${BOOKING}/${index}`,
      env: BOOKING,
      instruction: writeInstruction(goal, rng),
      spec: { ...spec },
      origin: 'seed',
    };
  }
}

/** The first `count` tasks of a split (test: indices 0.., train: TEST_TASK_COUNT..). */
export function bookingTasks(split: TaskSplit, count?: number): Task[] {
  const wanted = count ?? (split === 'test' ? TEST_TASK_COUNT : DEFAULT_TRAIN_TASK_COUNT);
  if (split === 'test' && wanted > TEST_TASK_COUNT) {
    throw new ConfigError(
      `the booking test split has ${TEST_TASK_COUNT} tasks; asked for ${wanted}. Use the train split for more.`,
    );
  }
  const first = split === 'test' ? 0 : TEST_TASK_COUNT;
  return Array.from({ length: wanted }, (_, k) => bookingTask(first + k));
}

/** A task's booking spec, or a {@link TaskError} saying why this env cannot run it. */
export function bookingSpec(task: Task): BookingSpec {
  if (task.env !== BOOKING) {
    throw new TaskError(`task ${task.id} is for env "${task.env}", not "${BOOKING}".`);
  }
  const spec = task.spec as Partial<BookingSpec> | undefined;
  if (typeof spec?.inventorySeed !== 'number' || !spec.goal) {
    throw new TaskError(
      `task ${task.id} has no booking spec (inventorySeed and goal); a generated task without a spec can only run in a synthetic env.`,
    );
  }
  return spec as BookingSpec;
}

/** Stays tried in an inventory before drawing another. */
const STAY_ATTEMPTS = 20;

/**
 * A request the inventory supports: a stay with at least three rooms free, and a feature and/or
 * kind whose cheapest free room is unique and is not the cheapest room listed. Undefined when
 * no stay tried gives one.
 */
function drawGoal(
  ask: (typeof ASKS)[number],
  inventory: Inventory,
  rng: Rng,
): BookingGoal | undefined {
  for (let attempt = 0; attempt < STAY_ATTEMPTS; attempt++) {
    const nights = rng.between(1, 5);
    const stay: Stay = {
      town: rng.pick(inventory.towns),
      arrival: rng.between(1, MONTH_DAYS - nights + 1),
      nights,
      guests: rng.weighted([1, 2, 3, 4], [0.2, 0.5, 0.2, 0.1]),
    };
    const rooms = availableRooms(inventory, stay);
    if (rooms.length < 3) continue;
    const cheapest = Math.min(...rooms.map((r) => roomTotal(r, stay)));
    const features = [...new Set(rooms.flatMap((r) => r.features))];
    const kinds = [...new Set(rooms.map((r) => r.kind))];
    const asks = (ask === 'kind' ? [undefined] : features).flatMap((feature) =>
      (ask === 'feature' ? [undefined] : kinds).map((kind) => ({ feature, kind })),
    );
    const fine = asks.filter((a) => {
      const totals = matching(a, rooms).map((r) => roomTotal(r, stay));
      const best = Math.min(...totals);
      return totals.length > 0 && best > cheapest && totals.filter((t) => t === best).length === 1;
    });
    if (fine.length === 0) continue;
    const { feature, kind } = rng.pick(fine);
    const goal: BookingGoal = {
      stay,
      ...(feature !== undefined && { feature }),
      ...(kind !== undefined && { kind }),
      name: `${rng.pick(GUEST_GIVEN)} ${rng.pick(GUEST_FAMILY)}`,
      phone: `555-${String(rng.int(10_000)).padStart(4, '0')}`,
      breakfast: rng.chance(0.5),
    };
    if (bestRoom(goal, inventory)) return goal;
  }
  return undefined;
}
