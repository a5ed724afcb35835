import { words } from '../../core/text.ts';
import { parseBracketAction } from '../actions.ts';
import { money, orderTotalCents, type SupportDb } from './db.ts';
import type { FinalAction } from './goals.ts';

/** The desk's tools, each called as `tool[argument]`. */
export const TOOLS = [
  'find_customer',
  'get_customer',
  'get_order',
  'cancel_order',
  'refund',
  'answer',
] as const;

/** A JSON tool result. */
export type ToolResult = Record<string, unknown>;

/**
 * What a call did: refused (not a tool call; nothing changed), or a tool result, which for an
 * answer and for a cancel or refund that went through also ends the ticket.
 */
export type DeskReply =
  | { ok: false; reason: string }
  | { ok: true; result: ToolResult; final?: FinalAction };

/**
 * The support desk's tools over one hidden database, as a replayable state machine: the env
 * drives one, and the scripted expert replays an episode's calls on its own copy.
 *
 * A well-formed call of a known tool is always carried out and answered in JSON, even when it
 * finds nothing or is not allowed (`{"error":"not_found",…}`, `{"error":"not_allowed",…}`):
 * those are the tool's answers, as a real API's would be. Only malformed calls are refused.
 * Cancelling (pending orders only) and refunding (delivered orders only) are irreversible.
 */
export class SupportDesk {
  private readonly customersSeen: string[] = [];
  private readonly ordersSeen: string[] = [];

  /** The desk over `db`, which its calls change (cancel, refund): pass a fresh copy. */
  constructor(readonly db: SupportDb) {}

  /** Carries out one call. */
  call(action: string): DeskReply {
    const parsed = parseBracketAction(action);
    if (!parsed) {
      return { ok: false, reason: `"${action}" is not a tool call: write tool_name[argument].` };
    }
    const { verb, arg } = parsed;
    if (!(TOOLS as readonly string[]).includes(verb)) {
      return { ok: false, reason: `unknown tool "${verb}"; the tools are ${TOOLS.join(', ')}.` };
    }
    if (arg.length === 0) return { ok: false, reason: `${verb}[] needs an argument.` };
    const id = arg.toUpperCase();
    switch (verb) {
      case 'find_customer':
        return { ok: true, result: this.findCustomer(arg) };
      case 'get_customer':
        return { ok: true, result: this.getCustomer(id) };
      case 'get_order':
        return { ok: true, result: this.getOrder(id) };
      case 'answer':
        return { ok: true, result: { ok: true, answer: arg }, final: { tool: 'answer', arg } };
      default:
        return this.change(verb as 'cancel_order' | 'refund', id);
    }
  }

  /**
   * The admissible calls: lookups by name and answers as templates, and every id tool for the
   * ids this episode has shown (never ids it has not).
   */
  actions(): string[] {
    return [
      'find_customer[<name>]',
      ...this.customersSeen.map((id) => `get_customer[${id}]`),
      ...this.ordersSeen.flatMap((id) => [
        `get_order[${id}]`,
        `cancel_order[${id}]`,
        `refund[${id}]`,
      ]),
      'answer[<text>]',
    ];
  }

  private findCustomer(query: string): ToolResult {
    const wanted = words(query);
    const found = this.db.customers.filter((c) => {
      const known = new Set(words(`${c.name} ${c.town}`));
      return wanted.every((w) => known.has(w));
    });
    for (const c of found) this.see(this.customersSeen, c.id);
    return { customers: found.map((c) => ({ id: c.id, name: c.name, town: c.town })) };
  }

  private getCustomer(id: string): ToolResult {
    const customer = this.db.customers.find((c) => c.id === id);
    if (!customer) return notFound('customer', id);
    this.see(this.customersSeen, id);
    for (const order of customer.orders) this.see(this.ordersSeen, order);
    return { ...customer, orders: [...customer.orders] };
  }

  private getOrder(id: string): ToolResult {
    const order = this.db.orders.find((o) => o.id === id);
    if (!order) return notFound('order', id);
    this.see(this.ordersSeen, id);
    this.see(this.customersSeen, order.customer);
    return {
      id: order.id,
      customer: order.customer,
      placed: order.placed,
      status: order.status,
      items: order.lines.map((line) => {
        const product = this.db.products.find((p) => p.id === line.product);
        return { product: product?.name, qty: line.qty, price: money(product?.priceCents ?? 0) };
      }),
      total: money(orderTotalCents(this.db, order)),
    };
  }

  private change(tool: 'cancel_order' | 'refund', id: string): DeskReply {
    const order = this.db.orders.find((o) => o.id === id);
    if (!order) return { ok: true, result: notFound('order', id) };
    const [from, to] =
      tool === 'cancel_order' ? ['pending', 'cancelled'] : ['delivered', 'refunded'];
    if (order.status !== from) {
      const verb = tool === 'cancel_order' ? 'cancelled' : 'refunded';
      return {
        ok: true,
        result: {
          error: 'not_allowed',
          message: `order ${id} is ${order.status}; only ${from} orders can be ${verb}`,
        },
      };
    }
    order.status = to as 'cancelled' | 'refunded';
    return { ok: true, result: { ok: true, order: id, status: to }, final: { tool, arg: id } };
  }

  private see(list: string[], id: string): void {
    if (!list.includes(id)) list.push(id);
  }
}

function notFound(what: string, id: string): ToolResult {
  return { error: 'not_found', message: `no ${what} ${id}` };
}
