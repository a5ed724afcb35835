import type { Rng } from '../../core/rng.ts';
import { money, type Order, orderTotalCents, type SupportDb } from './db.ts';
import { ORDER_STATUSES } from './words.ts';

/** What a support ticket asks for. */
export type GoalKind = 'status' | 'total' | 'count-shipped' | 'cancel' | 'refund';

/** Every goal kind, in the order the task set cycles through them. */
export const GOAL_KINDS: readonly GoalKind[] = [
  'status',
  'total',
  'cancel',
  'refund',
  'count-shipped',
];

/**
 * A ticket's hidden goal: the customer who wrote it and, for all kinds but `count-shipped`, the
 * order they mean, which the ticket names only by a product in it.
 */
export interface SupportGoal {
  kind: GoalKind;
  customer: string;
  order?: string;
  product?: string;
}

/** How a ticket ends: an answer, or one of the two irreversible changes. */
export interface FinalAction {
  tool: 'answer' | 'cancel_order' | 'refund';
  arg: string;
}

/** The ticket's text as the customer writes it. */
export function writeInstruction(
  goal: SupportGoal,
  customer: { name: string; town: string },
  rng: Rng,
): string {
  const hello = rng.pick([
    `Hi, this is ${customer.name} from ${customer.town}.`,
    `Hello, I'm ${customer.name} (${customer.town}).`,
    `${customer.name} here, from ${customer.town}.`,
  ]);
  const thing = `the ${goal.product}`;
  const ask: Record<GoalKind, string[]> = {
    status: [
      `What is the status of my order with ${thing}?`,
      `Where is my order that has ${thing} in it? I need its status.`,
    ],
    total: [
      `How much did my order with ${thing} cost in total?`,
      `What was the total of the order I placed for ${thing}?`,
    ],
    cancel: [
      `Please cancel my order with ${thing}; it has not shipped yet.`,
      `I changed my mind about ${thing}. Cancel that order, please.`,
    ],
    refund: [
      `${capitalize(thing)} arrived broken. Please refund that order.`,
      `I want a refund for my order with ${thing}; it came damaged.`,
    ],
    'count-shipped': [
      'How many of my orders have shipped but not arrived yet?',
      'How many of my orders are on their way right now (shipped, not delivered)?',
    ],
  };
  return `${hello} ${rng.pick(ask[goal.kind])}`;
}

/** The answer the hidden database makes right for an answer goal; undefined for changes. */
export function expectedAnswer(goal: SupportGoal, db: SupportDb): string | undefined {
  const order = db.orders.find((o) => o.id === goal.order);
  if (goal.kind === 'status') return order?.status;
  if (goal.kind === 'total') return order && money(orderTotalCents(db, order));
  if (goal.kind === 'count-shipped') return String(shippedCount(goal.customer, db));
  return undefined;
}

/**
 * Reward of the action that ended the ticket, read from the hidden database: 1 for the right
 * answer (a status answer must name the one right status; a number answer must hold the one right
 * number) or the change the ticket asked for on its order; 0 for anything else — an answer to a
 * change ticket, a change to another order, or the other change.
 */
export function finalReward(goal: SupportGoal, db: SupportDb, final: FinalAction): number {
  if (final.tool === 'answer') {
    const expected = expectedAnswer(goal, db);
    if (expected === undefined) return 0;
    const text = final.arg.toLowerCase();
    if (goal.kind === 'status') {
      const named = [...ORDER_STATUSES, 'refunded'].filter((s) =>
        new RegExp(`\\b${s}\\b`).test(text),
      );
      return named.length === 1 && named[0] === expected ? 1 : 0;
    }
    const numbers = text.match(/\d+(?:\.\d+)?/g) ?? [];
    return numbers.length === 1 && Number(numbers[0]) === Number(expected) ? 1 : 0;
  }
  const wanted = goal.kind === 'cancel' ? 'cancel_order' : goal.kind === 'refund' ? 'refund' : '';
  return final.tool === wanted && final.arg === goal.order ? 1 : 0;
}

/** How many of a customer's orders are shipped (on their way). */
export function shippedCount(customer: string, db: SupportDb): number {
  return db.orders.filter((o: Order) => o.customer === customer && o.status === 'shipped').length;
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
