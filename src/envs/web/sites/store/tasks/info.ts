/**
 * Information-seeking templates: the agent finds a fact and answers with `stop [answer]`, checked
 * by string_match. Every reference is read from the generated database.
 */

import type Database from 'better-sqlite3';
import { formatDate, formatMoney, plainMoney } from '../format.ts';
import { bestSellers, monthlySales } from '../queries.ts';
import { MONTH_NAMES, ORDER_YEARS } from '../vocab.ts';
import { answerIncludes, exactAnswer, type StoreTemplate, template } from './template.ts';

/** A money answer: `$1,234.50` or `1234.50`. */
function money(cents: number): string[] {
  const shown = formatMoney(cents);
  return shown.includes(',') ? [shown, plainMoney(cents)] : [shown];
}

interface Product {
  id: number;
  sku: string;
  name: string;
  price_cents: number;
  qty: number;
  status: string;
}

interface Order {
  id: number;
  number: string;
  status: string;
  placed_at: string;
  customer: string;
  total_cents: number;
  units: number;
}

interface Customer {
  id: number;
  name: string;
  email: string;
  phone: string;
  group_name: string;
  city: string;
  orders: number;
  lifetime_cents: number;
}

const products = (db: Database.Database) =>
  db.prepare('SELECT * FROM products ORDER BY id').all() as Product[];

const orders = (db: Database.Database) =>
  db
    .prepare(
      `SELECT o.id, o.number, o.status, o.placed_at, c.first_name || ' ' || c.last_name AS customer,
         o.shipping_cents + (SELECT SUM(qty * price_cents) FROM order_items WHERE order_id = o.id) AS total_cents,
         (SELECT SUM(qty) FROM order_items WHERE order_id = o.id) AS units
       FROM orders o JOIN customers c ON c.id = o.customer_id ORDER BY o.id`,
    )
    .all() as Order[];

const customers = (db: Database.Database) =>
  db
    .prepare(
      `SELECT c.id, c.first_name || ' ' || c.last_name AS name, c.email, c.phone, c.group_name, c.city,
         (SELECT COUNT(*) FROM orders WHERE customer_id = c.id) AS orders,
         (SELECT COALESCE(SUM(o.shipping_cents + (SELECT SUM(qty * price_cents) FROM order_items WHERE order_id = o.id)), 0)
          FROM orders o WHERE o.customer_id = c.id AND o.status != 'Canceled') AS lifetime_cents
       FROM customers c ORDER BY c.id`,
    )
    .all() as Customer[];

interface Period {
  year: number;
  month: number;
}

/** Every month with orders, oldest first. */
function months(): Period[] {
  return ORDER_YEARS.flatMap((year) => MONTH_NAMES.map((_, i) => ({ year, month: i + 1 })));
}

const monthSlot = ({ year, month }: Period) => ({
  month: MONTH_NAMES[month - 1] as string,
  year: String(year),
});

export const INFO_TEMPLATES: StoreTemplate[] = [
  template<Product>({
    id: 1,
    key: 'product-price',
    kind: 'info',
    intents: [
      'What is the price of the product with SKU {{sku}}?',
      'How much does the product {{sku}} sell for?',
      'Tell me the current price of SKU {{sku}}.',
    ],
    candidates: products,
    instantiate: (p) => ({ slots: { sku: p.sku }, eval: answerIncludes(money(p.price_cents)) }),
  }),
  template<Product>({
    id: 2,
    key: 'product-qty',
    kind: 'info',
    intents: [
      'How many units of {{product}} are in stock?',
      'What is the stock quantity of {{product}}?',
      'How many {{product}} do we have left in stock?',
    ],
    candidates: products,
    instantiate: (p) => ({ slots: { product: p.name }, eval: answerIncludes(String(p.qty)) }),
  }),
  template<Product>({
    id: 3,
    key: 'product-sku',
    kind: 'info',
    intents: ['What is the SKU of {{product}}?', 'Find the SKU of the product named {{product}}.'],
    candidates: products,
    instantiate: (p) => ({ slots: { product: p.name }, eval: exactAnswer(p.sku) }),
  }),
  template<Product>({
    id: 4,
    key: 'product-status',
    kind: 'info',
    intents: [
      'Is {{product}} enabled or disabled?',
      'What is the status of the product {{product}}: Enabled or Disabled?',
    ],
    candidates: products,
    instantiate: (p) => ({ slots: { product: p.name }, eval: exactAnswer(p.status) }),
  }),
  template<Product & { avg: number }>({
    id: 5,
    key: 'product-rating',
    kind: 'info',
    intents: [
      'What is the average rating of the approved reviews of {{product}}?',
      'How is {{product}} rated on average in its approved reviews?',
    ],
    candidates: (db) =>
      db
        .prepare(
          `SELECT p.*, AVG(r.rating) AS avg FROM products p JOIN reviews r ON r.product_id = p.id
           WHERE r.status = 'Approved' GROUP BY p.id ORDER BY p.id`,
        )
        .all() as Array<Product & { avg: number }>,
    instantiate: (p) => ({ slots: { product: p.name }, eval: answerIncludes(p.avg.toFixed(1)) }),
  }),
  template<Order>({
    id: 6,
    key: 'order-status',
    kind: 'info',
    intents: [
      'What is the status of order #{{order}}?',
      'Has order #{{order}} been completed? Tell me its status.',
      'Check the current status of order {{order}}.',
    ],
    candidates: orders,
    instantiate: (o) => ({ slots: { order: o.number }, eval: exactAnswer(o.status) }),
  }),
  template<Order>({
    id: 7,
    key: 'order-total',
    kind: 'info',
    intents: [
      'What is the grand total of order #{{order}}?',
      'How much did the customer pay in total for order #{{order}}?',
    ],
    candidates: orders,
    instantiate: (o) => ({
      slots: { order: o.number },
      eval: answerIncludes(money(o.total_cents)),
    }),
  }),
  template<Order>({
    id: 8,
    key: 'order-customer',
    kind: 'info',
    intents: ['Who placed order #{{order}}?', 'Which customer is order #{{order}} for?'],
    candidates: orders,
    instantiate: (o) => ({ slots: { order: o.number }, eval: answerIncludes(o.customer) }),
  }),
  template<Order>({
    id: 9,
    key: 'order-units',
    kind: 'info',
    intents: [
      'How many items were ordered in order #{{order}}?',
      'Count the units in order #{{order}}.',
    ],
    candidates: orders,
    instantiate: (o) => ({ slots: { order: o.number }, eval: answerIncludes(String(o.units)) }),
  }),
  template<Order>({
    id: 10,
    key: 'order-date',
    kind: 'info',
    intents: ['On what date was order #{{order}} placed?', 'When was order #{{order}} placed?'],
    candidates: orders,
    instantiate: (o) => {
      const day = o.placed_at.slice(0, 10);
      const [, m, d] = day.split('-').map(Number) as [number, number, number];
      const long = `${MONTH_NAMES[m - 1]} ${d}, ${day.slice(0, 4)}`;
      return {
        slots: { order: o.number },
        eval: answerIncludes([formatDate(day), long, day]),
      };
    },
  }),
  template<Customer>({
    id: 11,
    key: 'customer-email',
    kind: 'info',
    intents: ['What is the email address of {{customer}}?', "Find {{customer}}'s email."],
    candidates: customers,
    instantiate: (c) => ({ slots: { customer: c.name }, eval: exactAnswer(c.email) }),
  }),
  template<Customer>({
    id: 12,
    key: 'customer-group',
    kind: 'info',
    intents: [
      'Which customer group is {{customer}} in?',
      'What customer group does {{customer}} belong to?',
    ],
    candidates: customers,
    instantiate: (c) => ({ slots: { customer: c.name }, eval: exactAnswer(c.group_name) }),
  }),
  template<Customer>({
    id: 13,
    key: 'customer-phone',
    kind: 'info',
    intents: [
      "What is {{customer}}'s phone number?",
      'How can I call {{customer}}? Give the phone number.',
    ],
    candidates: customers,
    instantiate: (c) => ({ slots: { customer: c.name }, eval: answerIncludes(c.phone) }),
  }),
  template<Customer>({
    id: 14,
    key: 'customer-orders',
    kind: 'info',
    intents: [
      'How many orders has {{customer}} placed?',
      'Count the orders of customer {{customer}}.',
    ],
    candidates: (db) => customers(db).filter((c) => c.orders > 0),
    instantiate: (c) => ({ slots: { customer: c.name }, eval: answerIncludes(String(c.orders)) }),
  }),
  template<Customer>({
    id: 15,
    key: 'customer-city',
    kind: 'info',
    intents: [
      'In which city does {{customer}} live?',
      'What city is in the address of {{customer}}?',
    ],
    candidates: customers,
    instantiate: (c) => ({ slots: { customer: c.name }, eval: exactAnswer(c.city) }),
  }),
  template<Customer>({
    id: 16,
    key: 'customer-lifetime',
    kind: 'info',
    intents: [
      'What are the lifetime sales of {{customer}}?',
      'How much has {{customer}} spent with us in total (canceled orders excluded)?',
    ],
    candidates: (db) => customers(db).filter((c) => c.lifetime_cents > 0),
    instantiate: (c) => ({
      slots: { customer: c.name },
      eval: answerIncludes(money(c.lifetime_cents)),
    }),
  }),
  template<Period & { name: string }>({
    id: 17,
    key: 'bestseller-month',
    kind: 'info',
    intents: [
      'What was the best-selling product in {{month}} {{year}}?',
      'Which product sold the most units in {{month}} {{year}}?',
      'Name the top seller of {{month}} {{year}}.',
    ],
    candidates: (db) => uniqueTops(db),
    instantiate: (p) => ({ slots: monthSlot(p), eval: answerIncludes(p.name) }),
  }),
  template<Period & { units: number }>({
    id: 18,
    key: 'bestseller-units',
    kind: 'info',
    intents: [
      'How many units did the best-selling product of {{month}} {{year}} sell that month?',
      'In {{month}} {{year}}, how many units of the top seller were sold?',
    ],
    candidates: (db) =>
      months()
        .map((p) => ({ ...p, units: bestSellers(db, p.year, p.month, 1)[0]?.units ?? 0 }))
        .filter((p) => p.units > 0),
    instantiate: (p) => ({ slots: monthSlot(p), eval: answerIncludes(String(p.units)) }),
  }),
  template<Period & { orders: number }>({
    id: 19,
    key: 'sales-orders',
    kind: 'info',
    intents: [
      'How many orders were placed in {{month}} {{year}}?',
      'What was the number of orders in {{month}} {{year}}?',
    ],
    candidates: (db) => salesMonths(db).map((m) => ({ ...m, orders: m.sales.orders })),
    instantiate: (p) => ({ slots: monthSlot(p), eval: answerIncludes(String(p.orders)) }),
  }),
  template<Period & { revenue: number }>({
    id: 20,
    key: 'sales-revenue',
    kind: 'info',
    intents: [
      'What was the revenue in {{month}} {{year}}?',
      'How much revenue did the store make in {{month}} {{year}}?',
    ],
    candidates: (db) => salesMonths(db).map((m) => ({ ...m, revenue: m.sales.revenueCents })),
    instantiate: (p) => ({ slots: monthSlot(p), eval: answerIncludes(money(p.revenue)) }),
  }),
  template<Period & { canceled: number }>({
    id: 21,
    key: 'sales-canceled',
    kind: 'info',
    intents: [
      'How many orders placed in {{month}} {{year}} were canceled?',
      'Count the canceled orders of {{month}} {{year}}.',
    ],
    candidates: (db) => salesMonths(db).map((m) => ({ ...m, canceled: m.sales.canceled })),
    instantiate: (p) => ({ slots: monthSlot(p), eval: answerIncludes(String(p.canceled)) }),
  }),
  template<Product & { pending: number }>({
    id: 22,
    key: 'product-pending-reviews',
    kind: 'info',
    intents: [
      'How many reviews of {{product}} are waiting for approval?',
      'How many pending reviews does {{product}} have?',
    ],
    candidates: (db) =>
      db
        .prepare(
          `SELECT p.*, SUM(r.status = 'Pending') AS pending FROM products p
           JOIN reviews r ON r.product_id = p.id GROUP BY p.id ORDER BY p.id`,
        )
        .all() as Array<Product & { pending: number }>,
    instantiate: (p) => ({ slots: { product: p.name }, eval: answerIncludes(String(p.pending)) }),
  }),
  template<{ product: string; nickname: string; rating: number }>({
    id: 23,
    key: 'review-rating',
    kind: 'info',
    intents: [
      'What rating did {{nickname}} give {{product}}?',
      'How many stars did {{nickname}} give {{product}} in their review?',
    ],
    candidates: (db) =>
      db
        .prepare(
          `SELECT p.name AS product, r.nickname, r.rating FROM reviews r
           JOIN products p ON p.id = r.product_id ORDER BY r.id`,
        )
        .all() as Array<{ product: string; nickname: string; rating: number }>,
    instantiate: (r) => ({
      slots: { product: r.product, nickname: r.nickname },
      eval: answerIncludes(String(r.rating)),
    }),
  }),
  template<{ number: string; product: string; qty: number }>({
    id: 24,
    key: 'order-item-qty',
    kind: 'info',
    intents: [
      'How many units of {{product}} were in order #{{order}}?',
      'In order #{{order}}, what quantity of {{product}} was ordered?',
    ],
    candidates: (db) =>
      db
        .prepare(
          `SELECT o.number, i.name AS product, i.qty FROM order_items i
           JOIN orders o ON o.id = i.order_id ORDER BY i.id`,
        )
        .all() as Array<{ number: string; product: string; qty: number }>,
    instantiate: (i) => ({
      slots: { order: i.number, product: i.product },
      eval: answerIncludes(String(i.qty)),
    }),
  }),
];

/** Months whose best seller is unique (more units than the runner-up), with its name. */
function uniqueTops(db: Database.Database): Array<Period & { name: string }> {
  return months().flatMap((p) => {
    const [top, second] = bestSellers(db, p.year, p.month, 2);
    if (!top || (second && second.units === top.units)) return [];
    return [{ ...p, name: top.name }];
  });
}

/** Every month of the order history with its sales figures. */
function salesMonths(db: Database.Database) {
  return ORDER_YEARS.flatMap((year) =>
    monthlySales(db, year).map((sales) => ({ year, month: sales.month, sales })),
  );
}
