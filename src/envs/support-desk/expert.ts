import type { Rng } from '../../core/rng.ts';
import type { Observation, Step, Task } from '../../core/types.ts';
import type { EnvExpert } from '../env.ts';
import {
  type Customer,
  generateDb,
  money,
  orderTotalCents,
  productNames,
  type SupportDb,
} from './db.ts';
import { SupportDesk } from './desk.ts';
import { expectedAnswer, type SupportGoal, shippedCount } from './goals.ts';
import { supportDeskSpec } from './tasks.ts';

/** A decision: the call and why. */
interface Decision {
  action: string;
  reasoning: string;
}

/** The reasoning of a mix-up, read back from the history as the expert's belief. */
const MIXED_UP = /^took (C-\d+) for the customer \(noise\)$/;

/**
 * A scripted support agent that knows the hidden database (it rebuilds it from the task spec):
 * it looks the customer up by name, opens the record of the one from the ticket's town, reads
 * their orders in turn until it has read the one the ticket means (all of them to count), then
 * answers from it or cancels or refunds it.
 *
 * With probability ε a decision goes wrong instead, as agents at a desk err. Slips cost a call:
 * opening a namesake's record, re-reading an order, mistyping an id (not found), a malformed call
 * (refused). Mistakes at the last call end the ticket with reward 0: acting on or answering from
 * another order, answering the wrong field. A mix-up lasts: right after the lookup it may take a
 * namesake for the customer and serve them instead, as long as they have a matching order.
 */
export class SupportDeskExpert implements EnvExpert {
  readonly id: string;
  /** Chance of a mistake at each decision: 0 plays perfectly. */
  readonly epsilon: number;

  constructor(options: { epsilon?: number } = {}) {
    this.epsilon = options.epsilon ?? 0;
    if (!(this.epsilon >= 0 && this.epsilon <= 1)) {
      throw new RangeError(`SupportDeskExpert: epsilon must be in [0, 1], got ${this.epsilon}`);
    }
    this.id = `support-desk-expert(eps=${this.epsilon})`;
  }

  async act(
    _observation: Observation,
    { task, history, rng }: { task: Task; history: readonly Step[]; rng: Rng },
  ): Promise<Decision> {
    const spec = supportDeskSpec(task);
    const db = generateDb(spec.dbSeed);
    const desk = new SupportDesk(generateDb(spec.dbSeed));
    for (const step of history) desk.call(step.action);
    const done = new Set(history.filter((s) => !s.info?.invalidAction).map((s) => s.action));
    const goal = believedGoal(spec.goal, db, history, done);
    const plan = planFor(goal, db);
    const next = plan.find((d) => !done.has(d.action)) ?? (plan.at(-1) as Decision);
    const seen = { customers: idsIn(desk, 'get_customer'), orders: idsIn(desk, 'get_order') };
    const context: MistakeContext = { goal, db, next, seen, rng, final: next === plan.at(-1) };
    if (history.at(-1)?.action.startsWith('find_customer[') && rng.chance(this.epsilon)) {
      const mixUp = mixedUp(context);
      if (mixUp) return mixUp;
    }
    if (rng.chance(this.epsilon)) {
      const kinds = [wrongCustomer, reread, mistyped, malformed, wrongOrder, wrongField];
      const options = kinds.map((kind) => kind(context)).filter((d) => d !== undefined);
      if (options.length > 0) return rng.pick(options);
    }
    return next;
  }
}

/** The calls that serve `goal`, in order, each with its reason. */
function planFor(goal: SupportGoal, db: SupportDb): Decision[] {
  const customer = db.customers.find((c) => c.id === goal.customer) as Customer;
  const toRead =
    goal.kind === 'count-shipped'
      ? customer.orders
      : customer.orders.slice(0, customer.orders.indexOf(goal.order as string) + 1);
  return [
    { action: `find_customer[${customer.name}]`, reasoning: `look up ${customer.name}` },
    {
      action: `get_customer[${customer.id}]`,
      reasoning: `${customer.id} is the ${customer.name} from ${customer.town}`,
    },
    ...toRead.map((id) => ({
      action: `get_order[${id}]`,
      reasoning:
        goal.kind === 'count-shipped'
          ? `read ${id} to count the shipped orders`
          : `read ${id}: is the ${goal.product} in it?`,
    })),
    finalCall(goal, db),
  ];
}

/** The call that ends the ticket. */
function finalCall(goal: SupportGoal, db: SupportDb): Decision {
  if (goal.kind === 'cancel' || goal.kind === 'refund') {
    const tool = goal.kind === 'cancel' ? 'cancel_order' : 'refund';
    return {
      action: `${tool}[${goal.order}]`,
      reasoning: `${goal.order} holds the ${goal.product}`,
    };
  }
  return { action: `answer[${expectedAnswer(goal, db)}]`, reasoning: `the ${goal.kind} is read` };
}

/**
 * The goal as the expert pursues it: the ticket's, unless it took a namesake for the customer and
 * has not yet made that one's final call.
 */
function believedGoal(
  goal: SupportGoal,
  db: SupportDb,
  history: readonly Step[],
  done: ReadonlySet<string>,
): SupportGoal {
  for (const step of history) {
    const mixUp = MIXED_UP.exec(step.reasoning ?? '');
    if (!mixUp) continue;
    const belief = goalFor(mixUp[1] as string, goal, db);
    return belief && !done.has(finalCall(belief, db).action) ? belief : goal;
  }
  return goal;
}

/** `goal` as it would read for customer `id`, if they have an order with the same product. */
function goalFor(id: string, goal: SupportGoal, db: SupportDb): SupportGoal | undefined {
  if (goal.kind === 'count-shipped') return { ...goal, customer: id };
  const customer = db.customers.find((c) => c.id === id);
  const order = customer?.orders.find((o) => {
    const found = db.orders.find((x) => x.id === o);
    return found && productNames(db, found).includes(goal.product as string);
  });
  return order ? { ...goal, customer: id, order } : undefined;
}

interface MistakeContext {
  goal: SupportGoal;
  db: SupportDb;
  /** The call the plan makes next. */
  next: Decision;
  /** Ids this episode has shown. */
  seen: { customers: string[]; orders: string[] };
  rng: Rng;
  /** Whether `next` ends the ticket. */
  final: boolean;
}

function mixedUp({ goal, db, seen, rng }: MistakeContext): Decision | undefined {
  const name = db.customers.find((c) => c.id === goal.customer)?.name;
  const namesakes = seen.customers.filter(
    (id) => id !== goal.customer && db.customers.find((c) => c.id === id)?.name === name,
  );
  const usable = namesakes.filter((id) => goalFor(id, goal, db));
  if (usable.length === 0) return undefined;
  const id = rng.pick(usable);
  return { action: `get_customer[${id}]`, reasoning: `took ${id} for the customer (noise)` };
}

function wrongCustomer({ goal, seen, rng }: MistakeContext): Decision | undefined {
  const others = seen.customers.filter((id) => id !== goal.customer);
  if (others.length === 0) return undefined;
  return {
    action: `get_customer[${rng.pick(others)}]`,
    reasoning: 'opened the wrong record (noise)',
  };
}

function reread({ seen, rng }: MistakeContext): Decision | undefined {
  if (seen.orders.length === 0) return undefined;
  return {
    action: `get_order[${rng.pick(seen.orders)}]`,
    reasoning: 'read an order again (noise)',
  };
}

function mistyped({ next, rng }: MistakeContext): Decision | undefined {
  const id = /\[([CO])-(\d+)\]$/.exec(next.action);
  if (!id || next.action.startsWith('cancel') || next.action.startsWith('refund')) return undefined;
  const digits = (id[2] as string).split('');
  const at = rng.int(digits.length);
  digits[at] = String((Number(digits[at]) + 1 + rng.int(8)) % 10);
  return {
    action: next.action.replace(/\[.*\]$/, `[${id[1]}-${digits.join('')}]`),
    reasoning: 'mistyped the id (noise)',
  };
}

function malformed({ next }: MistakeContext): Decision {
  return {
    action: next.action.replace('[', ' ').replace(/\]$/, ''),
    reasoning: 'malformed the call (noise)',
  };
}

function wrongOrder({ goal, db, seen, rng, final }: MistakeContext): Decision | undefined {
  if (!final || goal.kind === 'count-shipped') return undefined;
  const orders = seen.orders
    .filter((id) => id !== goal.order)
    .map((id) => db.orders.find((o) => o.id === id))
    .filter((o) => o !== undefined);
  const fits = orders.filter((o) =>
    goal.kind === 'cancel'
      ? o.status === 'pending'
      : goal.kind === 'refund'
        ? o.status === 'delivered'
        : true,
  );
  if (fits.length === 0) return undefined;
  const order = rng.pick(fits);
  const action =
    goal.kind === 'cancel'
      ? `cancel_order[${order.id}]`
      : goal.kind === 'refund'
        ? `refund[${order.id}]`
        : `answer[${goal.kind === 'status' ? order.status : money(orderTotalCents(db, order))}]`;
  return { action, reasoning: `acted on ${order.id}, the wrong order (noise)` };
}

function wrongField({ goal, db, final }: MistakeContext): Decision | undefined {
  if (!final) return undefined;
  const order = db.orders.find((o) => o.id === goal.order);
  const pending = db.orders.filter((o) => o.customer === goal.customer && o.status === 'pending');
  const answer =
    goal.kind === 'status' && order
      ? money(orderTotalCents(db, order))
      : goal.kind === 'total' && order
        ? order.status
        : goal.kind === 'count-shipped' && pending.length !== shippedCount(goal.customer, db)
          ? String(pending.length)
          : undefined;
  return answer === undefined
    ? undefined
    : { action: `answer[${answer}]`, reasoning: 'answered the wrong field (noise)' };
}

/** The ids of the admissible `tool[id]` calls: the ids the episode has shown. */
function idsIn(desk: SupportDesk, tool: string): string[] {
  return desk
    .actions()
    .filter((a) => a.startsWith(`${tool}[`))
    .map((a) => a.slice(tool.length + 1, -1));
}
