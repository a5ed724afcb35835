import { Rng } from '../../core/rng.ts';
import {
  FAMILY_NAMES,
  GIVEN_NAMES,
  GOODS,
  ORDER_STATUSES,
  type OrderStatus,
  TOWNS,
} from './words.ts';

/** A product the shop sells; prices are in cents so totals add up exactly. */
export interface Product {
  id: string;
  name: string;
  priceCents: number;
}

/** One line of an order. */
export interface OrderLine {
  product: string;
  qty: number;
}

/** An order; `customer` is the id of whoever placed it. */
export interface Order {
  id: string;
  customer: string;
  placed: string;
  status: OrderStatus;
  lines: OrderLine[];
}

/** A customer; `orders` lists their order ids, oldest first. */
export interface Customer {
  id: string;
  name: string;
  town: string;
  orders: string[];
}

/** The shop's hidden database: what the tools read and change. */
export interface SupportDb {
  customers: Customer[];
  products: Product[];
  orders: Order[];
}

/** How many customers and products a generated database holds. */
const CUSTOMERS = 12;
const PRODUCTS = 20;
/** Family names drawn per database: few, so many customers share one. */
const FAMILIES_PER_DB = 5;
/** Chance that a customer is a full namesake (same given and family name) of an earlier one. */
const NAMESAKE_CHANCE = 0.35;

/**
 * The database of seed `seed`: 12 customers (many sharing a family name, some a full name, told
 * apart by town), 20 products, and 2–5 orders per customer whose products recur across
 * customers, so the same product sits in several people's orders.
 */
export function generateDb(seed: number): SupportDb {
  const rng = new Rng(seed).fork('support-desk-db');
  const ids = new Set<string>();
  const freshId = (prefix: string, digits: number) => {
    for (;;) {
      const id = `${prefix}-${rng.between(10 ** (digits - 1), 10 ** digits - 1)}`;
      if (!ids.has(id)) {
        ids.add(id);
        return id;
      }
    }
  };

  const combos = GOODS.flatMap((g) => g.materials.map((m) => ({ ...g, material: m })));
  const products = rng.sample(combos, PRODUCTS).map((g) => ({
    id: freshId('P', 3),
    name: `${g.material} ${g.kind}`,
    priceCents: rng.between(g.price[0], g.price[1]) * 100 + rng.pick([0, 50, 95, 99]),
  }));

  const families = rng.sample(FAMILY_NAMES, FAMILIES_PER_DB);
  const customers: Customer[] = [];
  for (let i = 0; i < CUSTOMERS; i++) {
    const twin =
      customers.length > 0 && rng.chance(NAMESAKE_CHANCE) ? rng.pick(customers) : undefined;
    let name = twin?.name ?? `${rng.pick(GIVEN_NAMES)} ${rng.pick(families)}`;
    // A name already in every town draws another (only then, so other databases stay as they were).
    while (townsFree(customers, name).length === 0) {
      name = `${rng.pick(GIVEN_NAMES)} ${rng.pick(families)}`;
    }
    customers.push({
      id: freshId('C', 4),
      name,
      town: rng.pick(townsFree(customers, name)),
      orders: [],
    });
  }

  const orders: Order[] = [];
  for (const customer of customers) {
    const count = rng.between(2, 5);
    const days = Array.from({ length: count }, () => rng.between(1, 330)).sort((a, b) => a - b);
    for (const day of days) {
      const order: Order = {
        id: freshId('O', 4),
        customer: customer.id,
        placed: dateOfDay(day),
        status: rng.weighted(ORDER_STATUSES, [0.3, 0.25, 0.35, 0.1]),
        lines: rng.sample(products, rng.weighted([1, 2, 3], [0.5, 0.35, 0.15])).map((p) => ({
          product: p.id,
          qty: rng.weighted([1, 2, 3], [0.75, 0.2, 0.05]),
        })),
      };
      orders.push(order);
      customer.orders.push(order.id);
    }
  }
  return { customers, products, orders };
}

/** The towns where no customer called `name` lives yet. */
function townsFree(customers: Customer[], name: string): readonly string[] {
  return TOWNS.filter((t) => !customers.some((c) => c.name === name && c.town === t));
}

/** An order's total in cents. */
export function orderTotalCents(db: SupportDb, order: Order): number {
  return order.lines.reduce(
    (sum, line) =>
      sum + line.qty * (db.products.find((p) => p.id === line.product)?.priceCents ?? 0),
    0,
  );
}

/** Cents as the tools show money: `3450` → `34.50`. */
export function money(cents: number): string {
  return (cents / 100).toFixed(2);
}

/** The product names of an order's lines. */
export function productNames(db: SupportDb, order: Order): string[] {
  return order.lines.map((l) => db.products.find((p) => p.id === l.product)?.name ?? l.product);
}

/** Day 1–365 of 2025 as an ISO date, e.g. `2025-03-02`. */
function dateOfDay(day: number): string {
  const lengths = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  let month = 0;
  let rest = day;
  while (rest > (lengths[month] as number)) rest -= lengths[month++] as number;
  return `2025-${String(month + 1).padStart(2, '0')}-${String(rest).padStart(2, '0')}`;
}
