/**
 * The seeded `support-desk` task set and its splits. Task i is always the same: its goal kind is
 * the i-th of {@link GOAL_KINDS} in turn, and `new Rng(i).fork('support-desk-task')` draws a
 * database seed and a ticket that database supports. Indices below {@link TEST_TASK_COUNT} are
 * the test split, the rest train; each task has its own database, so splits share none.
 */

import { ConfigError, TaskError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Task } from '../../core/types.ts';
import type { TaskSplit } from '../env.ts';
import { type Customer, generateDb, productNames, type SupportDb } from './db.ts';
import { GOAL_KINDS, type GoalKind, type SupportGoal, writeInstruction } from './goals.ts';

/** The env family name. */
export const SUPPORT_DESK = 'support-desk';

/** Task indices [0, TEST_TASK_COUNT) are the test split. */
export const TEST_TASK_COUNT = 500;

/** Train tasks handed out when the caller does not say how many. */
export const DEFAULT_TRAIN_TASK_COUNT = 1000;

/** `Task.spec` of support-desk tasks: the database to build and the ticket's hidden goal. */
export interface SupportDeskSpec {
  dbSeed: number;
  goal: SupportGoal;
}

/** Task `index` (a whole number ≥ 0). */
export function supportDeskTask(index: number): Task {
  if (!Number.isInteger(index) || index < 0) {
    throw new ConfigError(`support-desk task index must be a whole number ≥ 0, got ${index}.`);
  }
  const kind = GOAL_KINDS[index % GOAL_KINDS.length] as GoalKind;
  const rng = new Rng(index).fork('support-desk-task');
  for (;;) {
    const dbSeed = rng.uint32();
    const db = generateDb(dbSeed);
    const goal = drawGoal(kind, db, rng);
    if (!goal) continue;
    const customer = db.customers.find((c) => c.id === goal.customer) as Customer;
    const spec: SupportDeskSpec = { dbSeed, goal };
    return {
      id: `${SUPPORT_DESK}/${index}`,
      env: SUPPORT_DESK,
      instruction: writeInstruction(goal, customer, rng),
      spec: { ...spec },
      origin: 'seed',
    };
  }
}

/** The first `count` tasks of a split (test: indices 0.., train: TEST_TASK_COUNT..). */
export function supportDeskTasks(split: TaskSplit, count?: number): Task[] {
  const wanted = count ?? (split === 'test' ? TEST_TASK_COUNT : DEFAULT_TRAIN_TASK_COUNT);
  if (split === 'test' && wanted > TEST_TASK_COUNT) {
    throw new ConfigError(
      `the support-desk test split has ${TEST_TASK_COUNT} tasks; asked for ${wanted}. Use the train split for more.`,
    );
  }
  const first = split === 'test' ? 0 : TEST_TASK_COUNT;
  return Array.from({ length: wanted }, (_, k) => supportDeskTask(first + k));
}

/** A task's support-desk spec, or a {@link TaskError} saying why this env cannot run it. */
export function supportDeskSpec(task: Task): SupportDeskSpec {
  if (task.env !== SUPPORT_DESK) {
    throw new TaskError(`task ${task.id} is for env "${task.env}", not "${SUPPORT_DESK}".`);
  }
  const spec = task.spec as Partial<SupportDeskSpec> | undefined;
  if (typeof spec?.dbSeed !== 'number' || !spec.goal) {
    throw new TaskError(
      `task ${task.id} has no support-desk spec (dbSeed and goal); a generated task without a spec can only run in a synthetic env.`,
    );
  }
  return spec as SupportDeskSpec;
}

/** Statuses each order goal needs: only pending orders cancel, only delivered ones refund. */
const STATUS_FOR: Partial<Record<GoalKind, string>> = { cancel: 'pending', refund: 'delivered' };

/**
 * A goal of `kind` the database supports: an order of the kind's status holding a product no
 * other order of that customer holds (so the ticket names it unambiguously). Customers with a
 * namesake, and orders whose product also sits in a same-family customer's order, are preferred:
 * they make the wrong record easy to open. Undefined when the database has none.
 */
function drawGoal(kind: GoalKind, db: SupportDb, rng: Rng): SupportGoal | undefined {
  const family = (c: Customer) => c.name.split(' ').at(-1);
  const lookalikes = (c: Customer) =>
    db.customers.filter((o) => o !== c && family(o) === family(c));
  const namesake = (c: Customer) => lookalikes(c).some((o) => o.name === c.name);
  if (kind === 'count-shipped') {
    const customer = rng.weighted(
      db.customers,
      db.customers.map((c) => (namesake(c) ? 4 : 1) * (c.orders.length >= 3 ? 2 : 1)),
    );
    return { kind, customer: customer.id };
  }
  const options: Array<{ goal: SupportGoal; weight: number }> = [];
  for (const customer of db.customers) {
    const orders = customer.orders.map((id) => db.orders.find((o) => o.id === id));
    for (const order of orders) {
      if (!order || (STATUS_FOR[kind] && order.status !== STATUS_FOR[kind])) continue;
      const elsewhere = new Set(
        orders.filter((o) => o && o !== order).flatMap((o) => (o ? productNames(db, o) : [])),
      );
      for (const product of productNames(db, order).filter((p) => !elsewhere.has(p))) {
        const decoy = lookalikes(customer).some((other) =>
          other.orders.some((id) => {
            const o = db.orders.find((x) => x.id === id);
            return o !== undefined && productNames(db, o).includes(product);
          }),
        );
        options.push({
          goal: { kind, customer: customer.id, order: order.id, product },
          weight: 1 + (namesake(customer) ? 3 : 0) + (decoy ? 2 : 0),
        });
      }
    }
  }
  if (options.length === 0) return undefined;
  return rng.weighted(
    options.map((o) => o.goal),
    options.map((o) => o.weight),
  );
}
