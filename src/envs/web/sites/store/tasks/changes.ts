/**
 * Content and configuration changes: the agent edits the store and the final state is checked
 * with program_html (a locator read on the changed record's page). New values are drawn from the
 * task's random stream and always differ from the current ones, so doing nothing fails.
 */

import type Database from 'better-sqlite3';
import type { Rng } from '../../../../../core/rng.ts';
import { formatMoney, plainMoney } from '../format.ts';
import {
  CATEGORIES,
  CITIES,
  COMMENT_OPENERS,
  COMMENT_TOPICS,
  CUSTOMER_GROUPS,
  EMAIL_DOMAINS,
  PRODUCT_MATERIALS,
  PRODUCT_PREFIXES,
} from '../vocab.ts';
import { reviewRows } from './navigation.ts';
import { pageShows, type StoreTemplate, template, textOf } from './template.ts';

interface Product {
  id: number;
  sku: string;
  name: string;
  price_cents: number;
  qty: number;
  status: string;
}

const products = (db: Database.Database) =>
  db.prepare('SELECT * FROM products ORDER BY id').all() as Product[];

const ordersWith = (db: Database.Database, statuses: readonly string[]) =>
  db
    .prepare(
      `SELECT id, number, status FROM orders WHERE status IN (${statuses.map(() => '?').join(', ')}) ORDER BY id`,
    )
    .all(...statuses) as Array<{ id: number; number: string; status: string }>;

interface Customer {
  id: number;
  name: string;
  first_name: string;
  last_name: string;
  email: string;
  group_name: string;
  city: string;
}

const customers = (db: Database.Database) =>
  db
    .prepare("SELECT *, first_name || ' ' || last_name AS name FROM customers ORDER BY id")
    .all() as Customer[];

/** A new price near the old one, ending in .00, .49 or .99, never equal to it. */
function newPrice(rng: Rng, oldCents: number): number {
  for (;;) {
    const dollars = Math.max(1, Math.round((oldCents / 100) * (0.6 + 0.8 * rng.float())));
    const cents = dollars * 100 - rng.pick([0, 1, 51]);
    if (cents !== oldCents && cents > 0) return cents;
  }
}

function newQty(rng: Rng, old: number): number {
  for (;;) {
    const qty = rng.between(0, 300);
    if (qty !== old) return qty;
  }
}

const PRODUCT_PAGE_PRICE = textOf('#summary-price');

export const CHANGE_TEMPLATES: StoreTemplate[] = [
  template<Product>({
    id: 32,
    key: 'set-price',
    kind: 'change',
    intents: [
      'Change the price of {{product}} to {{price}}.',
      'Update {{product}} so that it costs {{price}}.',
      'Set the price of {{product}} to {{price}}, please.',
    ],
    candidates: products,
    instantiate: (p, rng) => {
      const cents = newPrice(rng, p.price_cents);
      return {
        slots: { product: p.name, price: `$${plainMoney(cents)}` },
        eval: pageShows(`/admin/products/${p.id}`, PRODUCT_PAGE_PRICE, {
          exact_match: formatMoney(cents),
        }),
      };
    },
  }),
  template<Product>({
    id: 33,
    key: 'set-qty',
    kind: 'change',
    intents: [
      'Set the stock quantity of SKU {{sku}} to {{qty}}.',
      'We counted {{qty}} units of {{sku}} in the warehouse; update its quantity.',
    ],
    candidates: products,
    instantiate: (p, rng) => {
      const qty = newQty(rng, p.qty);
      return {
        slots: { sku: p.sku, qty: String(qty) },
        eval: pageShows(`/admin/products/${p.id}`, textOf('#summary-qty'), {
          exact_match: String(qty),
        }),
      };
    },
  }),
  template<Product>({
    id: 34,
    key: 'disable-product',
    kind: 'change',
    intents: [
      'Disable the product {{product}}.',
      'Take {{product}} off sale by disabling it.',
      'Set the status of {{product}} to disabled.',
    ],
    candidates: (db) => products(db).filter((p) => p.status === 'Enabled'),
    instantiate: (p) => ({
      slots: { product: p.name },
      eval: pageShows(`/admin/products/${p.id}`, textOf('#summary-status'), {
        exact_match: 'Disabled',
      }),
    }),
  }),
  template<Product>({
    id: 35,
    key: 'enable-product',
    kind: 'change',
    intents: ['Enable the product {{product}}.', 'Put {{product}} back on sale by enabling it.'],
    candidates: (db) => products(db).filter((p) => p.status === 'Disabled'),
    instantiate: (p) => ({
      slots: { product: p.name },
      eval: pageShows(`/admin/products/${p.id}`, textOf('#summary-status'), {
        exact_match: 'Enabled',
      }),
    }),
  }),
  template<Product>({
    id: 36,
    key: 'rename-product',
    kind: 'change',
    intents: ['Rename {{product}} to {{name}}.', 'Change the name of {{product}} to "{{name}}".'],
    candidates: products,
    instantiate: (p, rng, db) => {
      const rest = p.name.split(' ').slice(1).join(' ');
      let name: string;
      do {
        name = `${rng.pick(PRODUCT_PREFIXES)} ${rest}`;
      } while (db.prepare('SELECT 1 FROM products WHERE name = ?').get(name));
      return {
        slots: { product: p.name, name },
        eval: pageShows(
          `/admin/products/${p.id}`,
          "document.querySelector('h1')?.outerText ?? ''",
          {
            exact_match: name,
          },
        ),
      };
    },
  }),
  template<{ id: number; number: string }>({
    id: 37,
    key: 'cancel-order',
    kind: 'change',
    intents: [
      'Cancel order #{{order}}.',
      'The customer of order #{{order}} changed their mind; cancel the order.',
    ],
    candidates: (db) => ordersWith(db, ['Pending', 'Processing']),
    instantiate: (o) => ({
      slots: { order: o.number },
      eval: pageShows(`/admin/orders/${o.id}`, textOf('#summary-status'), {
        exact_match: 'Canceled',
      }),
    }),
  }),
  template<{ id: number; number: string }>({
    id: 38,
    key: 'process-order',
    kind: 'change',
    intents: ['Start processing order #{{order}}.', 'Move pending order #{{order}} to processing.'],
    candidates: (db) => ordersWith(db, ['Pending']),
    instantiate: (o) => ({
      slots: { order: o.number },
      eval: pageShows(`/admin/orders/${o.id}`, textOf('#summary-status'), {
        exact_match: 'Processing',
      }),
    }),
  }),
  template<{ id: number; number: string }>({
    id: 39,
    key: 'complete-order',
    kind: 'change',
    intents: ['Mark order #{{order}} as complete.', 'Order #{{order}} was delivered; complete it.'],
    candidates: (db) => ordersWith(db, ['Processing']),
    instantiate: (o) => ({
      slots: { order: o.number },
      eval: pageShows(`/admin/orders/${o.id}`, textOf('#summary-status'), {
        exact_match: 'Complete',
      }),
    }),
  }),
  template<{ id: number; number: string }>({
    id: 40,
    key: 'comment-order',
    kind: 'change',
    intents: [
      'Add the comment "{{comment}}" to order #{{order}}.',
      'Leave a note on order #{{order}} saying: {{comment}}',
    ],
    candidates: (db) => ordersWith(db, ['Pending', 'Processing', 'Complete', 'Canceled']),
    instantiate: (o, rng) => {
      const comment = `${rng.pick(COMMENT_OPENERS)} ${rng.pick(COMMENT_TOPICS)}, ticket ${rng.between(1000, 9999)}.`;
      return {
        slots: { order: o.number, comment },
        eval: pageShows(`/admin/orders/${o.id}`, textOf('#order-comments'), {
          must_include: [comment],
        }),
      };
    },
  }),
  template<{ id: number; product: string; nickname: string; title: string }>({
    id: 41,
    key: 'approve-review',
    kind: 'change',
    intents: [
      'Approve the review {{nickname}} wrote about {{product}}.',
      'Publish the pending review "{{title}}" that {{nickname}} wrote about {{product}}.',
    ],
    candidates: (db) => reviewRows(db).filter((r) => r.status === 'Pending'),
    instantiate: (r) => ({
      slots: { product: r.product, nickname: r.nickname, title: r.title },
      eval: pageShows(`/admin/reviews/${r.id}`, textOf('#summary-status'), {
        exact_match: 'Approved',
      }),
    }),
  }),
  template<{ id: number; product: string; nickname: string; title: string }>({
    id: 42,
    key: 'reject-review',
    kind: 'change',
    intents: [
      'Reject the review {{nickname}} posted on {{product}}.',
      'Do not publish "{{title}}", the review {{nickname}} wrote about {{product}}: reject it.',
    ],
    candidates: (db) => reviewRows(db).filter((r) => r.status !== 'Rejected'),
    instantiate: (r) => ({
      slots: { product: r.product, nickname: r.nickname, title: r.title },
      eval: pageShows(`/admin/reviews/${r.id}`, textOf('#summary-status'), {
        exact_match: 'Rejected',
      }),
    }),
  }),
  template<{ product_id: number; product: string; nickname: string; title: string }>({
    id: 43,
    key: 'delete-review',
    kind: 'change',
    intents: [
      'Delete the review that {{nickname}} left on {{product}}.',
      'Remove the review "{{title}}" that {{nickname}} left on {{product}}.',
    ],
    candidates: reviewRows,
    instantiate: (r) => ({
      slots: { product: r.product, nickname: r.nickname, title: r.title },
      eval: pageShows(`/admin/products/${r.product_id}`, textOf('#product-reviews'), {
        must_exclude: [`by ${r.nickname},`],
      }),
    }),
  }),
  template<Customer>({
    id: 44,
    key: 'set-email',
    kind: 'change',
    intents: [
      "Change {{customer}}'s email address to {{email}}.",
      '{{customer}} has a new email, {{email}}; update the account.',
    ],
    candidates: customers,
    instantiate: (c, rng, db) => {
      let email: string;
      do {
        email =
          `${c.first_name}.${c.last_name}${rng.between(1, 99)}@${rng.pick(EMAIL_DOMAINS)}`.toLowerCase();
      } while (db.prepare('SELECT 1 FROM customers WHERE email = ?').get(email));
      return {
        slots: { customer: c.name, email },
        eval: pageShows(`/admin/customers/${c.id}`, textOf('#summary-email'), {
          exact_match: email,
        }),
      };
    },
  }),
  template<Customer>({
    id: 45,
    key: 'set-group',
    kind: 'change',
    intents: [
      'Move {{customer}} to the {{group}} customer group.',
      'Put customer {{customer}} in the {{group}} group.',
    ],
    candidates: customers,
    instantiate: (c, rng) => {
      const group = rng.pick(CUSTOMER_GROUPS.filter((g) => g !== c.group_name));
      return {
        slots: { customer: c.name, group },
        eval: pageShows(`/admin/customers/${c.id}`, textOf('#summary-group'), {
          exact_match: group,
        }),
      };
    },
  }),
  template<Customer>({
    id: 46,
    key: 'set-city',
    kind: 'change',
    intents: [
      '{{customer}} moved to {{city}}; change the city in their address.',
      "Update the city of {{customer}}'s address to {{city}}.",
    ],
    candidates: customers,
    instantiate: (c, rng) => {
      const city = rng.pick(CITIES.filter((x) => x !== c.city));
      return {
        slots: { customer: c.name, city },
        eval: pageShows(`/admin/customers/${c.id}`, textOf('#summary-address'), {
          must_include: [`, ${city} `],
        }),
      };
    },
  }),
  template<{ category: string }>({
    id: 47,
    key: 'create-product',
    kind: 'change',
    intents: [
      'Add a new product: SKU {{sku}}, named {{name}}, priced {{price}}, with {{qty}} in stock.',
      'Create the product {{name}} (SKU {{sku}}) at {{price}} with a stock of {{qty}}.',
    ],
    candidates: () => Object.keys(CATEGORIES).map((category) => ({ category })),
    instantiate: ({ category }, rng, db) => {
      let sku: string;
      do {
        sku = `${category.slice(0, 3).toUpperCase()}-${rng.between(1000, 9999)}`;
      } while (db.prepare('SELECT 1 FROM products WHERE sku = ?').get(sku));
      let name: string;
      do {
        name = `${rng.pick(PRODUCT_PREFIXES)} ${rng.pick(PRODUCT_MATERIALS)} ${rng.pick(CATEGORIES[category] as readonly string[])}`;
      } while (db.prepare('SELECT 1 FROM products WHERE name = ?').get(name));
      const cents = rng.between(5, 250) * 100 - rng.pick([0, 1, 51]);
      const qty = rng.between(1, 200);
      return {
        slots: { sku, name, price: `$${plainMoney(cents)}`, qty: String(qty) },
        eval: pageShows(`/admin/products?q=${sku}`, textOf('#grid'), {
          must_include: [sku, name, formatMoney(cents)],
        }),
      };
    },
  }),
];
