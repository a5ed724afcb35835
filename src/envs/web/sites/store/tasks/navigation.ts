/**
 * Navigation templates: the agent opens a page and stops there, checked by url_match (WebArena's
 * `GOLD in PRED`: the gold path and its query parameters must be in the final URL).
 */

import type Database from 'better-sqlite3';
import { PRODUCT_STATUSES } from '../generate.ts';
import { query } from '../layout.ts';
import { CATEGORIES, CUSTOMER_GROUPS, MONTH_NAMES, ORDER_YEARS } from '../vocab.ts';
import { endsOn, type StoreTemplate, template } from './template.ts';

export const NAVIGATION_TEMPLATES: StoreTemplate[] = [
  template<{ id: number; name: string }>({
    id: 25,
    key: 'open-product',
    kind: 'navigation',
    intents: [
      'Open the edit page of {{product}}.',
      'Take me to the product page of {{product}}.',
      'I want to edit {{product}}; open it.',
    ],
    candidates: (db) =>
      db.prepare('SELECT id, name FROM products ORDER BY id').all() as Array<{
        id: number;
        name: string;
      }>,
    instantiate: (p) => ({ slots: { product: p.name }, eval: endsOn(`/admin/products/${p.id}`) }),
  }),
  template<{ id: number; number: string }>({
    id: 26,
    key: 'open-order',
    kind: 'navigation',
    intents: ['Show me order #{{order}}.', 'Open the page of order {{order}}.'],
    candidates: (db) =>
      db.prepare('SELECT id, number FROM orders ORDER BY id').all() as Array<{
        id: number;
        number: string;
      }>,
    instantiate: (o) => ({ slots: { order: o.number }, eval: endsOn(`/admin/orders/${o.id}`) }),
  }),
  template<{ id: number; name: string }>({
    id: 27,
    key: 'open-customer',
    kind: 'navigation',
    intents: ["Go to {{customer}}'s customer page.", 'Open the account of customer {{customer}}.'],
    candidates: customerNames,
    instantiate: (c) => ({
      slots: { customer: c.name },
      eval: endsOn(`/admin/customers/${c.id}`),
    }),
  }),
  template<{ year: number; month: number }>({
    id: 28,
    key: 'open-bestsellers',
    kind: 'navigation',
    intents: [
      'Open the best sellers report for {{month}} {{year}}.',
      'Show me the best-selling products of {{month}} {{year}}.',
    ],
    candidates: () =>
      ORDER_YEARS.flatMap((year) => MONTH_NAMES.map((_, i) => ({ year, month: i + 1 }))),
    instantiate: ({ year, month }) => ({
      slots: { month: MONTH_NAMES[month - 1] as string, year: String(year) },
      eval: endsOn(`/admin/reports/bestsellers${query({ year, month })}`),
    }),
  }),
  template<{ status: string; category: string }>({
    id: 29,
    key: 'filter-products',
    kind: 'navigation',
    intents: [
      'List the {{status}} products in the {{category}} category.',
      'Show only {{category}} products that are {{status}}.',
    ],
    candidates: () =>
      Object.keys(CATEGORIES).flatMap((category) =>
        PRODUCT_STATUSES.map((status) => ({ status, category })),
      ),
    instantiate: (f) => ({
      slots: { status: f.status.toLowerCase(), category: f.category },
      eval: endsOn(`/admin/products${query({ status: f.status, category: f.category })}`),
    }),
  }),
  template<{ group: string; sort: string; dir: string; label: string }>({
    id: 30,
    key: 'sort-customers',
    kind: 'navigation',
    intents: [
      'List the customers of the {{group}} group sorted by {{order}}.',
      'Show {{group}} customers, sorted by {{order}}.',
    ],
    candidates: () =>
      CUSTOMER_GROUPS.flatMap((group) =>
        [
          { sort: 'orders', dir: 'desc', label: 'number of orders, most first' },
          { sort: 'orders', dir: 'asc', label: 'number of orders, fewest first' },
          { sort: 'city', dir: 'asc', label: 'city, A to Z' },
          { sort: 'email', dir: 'desc', label: 'email, Z to A' },
        ].map((s) => ({ group, ...s })),
      ),
    instantiate: (s) => ({
      slots: { group: s.group, order: s.label },
      eval: endsOn(`/admin/customers${query({ group: s.group, sort: s.sort, dir: s.dir })}`),
    }),
  }),
  template<{ id: number; product: string; nickname: string }>({
    id: 31,
    key: 'open-review',
    kind: 'navigation',
    intents: [
      'Open the review {{nickname}} wrote about {{product}}.',
      'Show me what {{nickname}} wrote about {{product}}.',
    ],
    candidates: reviewRows,
    instantiate: (r) => ({
      slots: { product: r.product, nickname: r.nickname },
      eval: endsOn(`/admin/reviews/${r.id}`),
    }),
  }),
];

export function customerNames(db: Database.Database) {
  return db
    .prepare("SELECT id, first_name || ' ' || last_name AS name FROM customers ORDER BY id")
    .all() as Array<{ id: number; name: string }>;
}

export function reviewRows(db: Database.Database) {
  return db
    .prepare(
      `SELECT r.id, p.id AS product_id, p.name AS product, r.nickname, r.title, r.status
       FROM reviews r JOIN products p ON p.id = r.product_id ORDER BY r.id`,
    )
    .all() as Array<{
    id: number;
    product_id: number;
    product: string;
    nickname: string;
    title: string;
    status: string;
  }>;
}
