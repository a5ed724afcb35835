/**
 * The store admin's generated state: a catalog, customers, three years of orders with line items
 * and staff comments, product reviews and the admin account, written into SQLite from a seed.
 *
 * Every random draw comes from a stream forked by purpose (`products`, `orders`, …), so a change
 * to how one table is drawn never shifts another. Names that tasks use to point at a row (product
 * names and SKUs, customer full names and emails, order numbers) are unique by construction.
 */

import type Database from 'better-sqlite3';
import { hashString, Rng } from '../../../../core/rng.ts';
import { SITE_CLOCK_SCHEMA, setSiteNow } from '../site-clock.ts';
import {
  CATEGORIES,
  CITIES,
  COLORS,
  COMMENT_OPENERS,
  COMMENT_TOPICS,
  CUSTOMER_GROUPS,
  EMAIL_DOMAINS,
  FIRST_NAMES,
  LAST_NAMES,
  ORDER_YEARS,
  PRODUCT_MATERIALS,
  PRODUCT_PREFIXES,
  REVIEW_SENTENCES,
  REVIEW_TITLES,
  SIZED_CATEGORIES,
  SIZES,
  STREET_KINDS,
  STREET_NAMES,
} from './vocab.ts';

/** How much of everything a generated store holds. */
export const STORE_SIZE = {
  products: 144,
  customers: 160,
  orders: 720,
  reviews: 320,
} as const;

/** Order statuses in their life-cycle order. */
export const ORDER_STATUSES = ['Pending', 'Processing', 'Complete', 'Canceled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const REVIEW_STATUSES = ['Pending', 'Approved', 'Rejected'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

export const PRODUCT_STATUSES = ['Enabled', 'Disabled'] as const;

/** The default admin account (shown on the login page: this is a local demo site). */
export const ADMIN_ACCOUNT = { username: 'admin', password: 'storeadmin1', name: 'Morgan Reyes' };

/**
 * The store's "now" (seconds, UTC): after the last generated order and its comments. Comments and
 * products added in an episode are dated by the site clock from here, never by the wall clock.
 */
export const STORE_NOW = Date.UTC(2025, 0, 3, 9) / 1000;

const SCHEMA = `
${SITE_CLOCK_SCHEMA}
CREATE TABLE admin_users (
  id INTEGER PRIMARY KEY, username TEXT NOT NULL UNIQUE, password TEXT NOT NULL,
  name TEXT NOT NULL, session_token TEXT NOT NULL UNIQUE
);
CREATE TABLE products (
  id INTEGER PRIMARY KEY, sku TEXT NOT NULL UNIQUE, name TEXT NOT NULL UNIQUE,
  category TEXT NOT NULL, price_cents INTEGER NOT NULL, qty INTEGER NOT NULL,
  status TEXT NOT NULL, color TEXT NOT NULL, size TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE customers (
  id INTEGER PRIMARY KEY, first_name TEXT NOT NULL, last_name TEXT NOT NULL,
  email TEXT NOT NULL UNIQUE, phone TEXT NOT NULL, group_name TEXT NOT NULL,
  street TEXT NOT NULL, city TEXT NOT NULL, zip TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE orders (
  id INTEGER PRIMARY KEY, number TEXT NOT NULL UNIQUE, customer_id INTEGER NOT NULL,
  status TEXT NOT NULL, placed_at TEXT NOT NULL, ship_city TEXT NOT NULL,
  shipping_cents INTEGER NOT NULL, FOREIGN KEY (customer_id) REFERENCES customers(id)
);
CREATE TABLE order_items (
  id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, product_id INTEGER NOT NULL,
  sku TEXT NOT NULL, name TEXT NOT NULL, price_cents INTEGER NOT NULL, qty INTEGER NOT NULL
);
CREATE TABLE order_comments (
  id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, body TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE TABLE reviews (
  id INTEGER PRIMARY KEY, product_id INTEGER NOT NULL, nickname TEXT NOT NULL,
  rating INTEGER NOT NULL, title TEXT NOT NULL, body TEXT NOT NULL, status TEXT NOT NULL,
  created_at TEXT NOT NULL, UNIQUE (product_id, nickname)
);
CREATE INDEX order_items_order ON order_items(order_id);
CREATE INDEX order_items_product ON order_items(product_id);
CREATE INDEX orders_customer ON orders(customer_id);
CREATE INDEX reviews_product ON reviews(product_id);
CREATE INDEX order_comments_order ON order_comments(order_id);
`;

/** Price ranges in dollars by category. */
const PRICE_RANGES: Readonly<Record<string, readonly [number, number]>> = {
  Kitchen: [12, 140],
  Garden: [8, 90],
  Outdoor: [15, 320],
  Office: [6, 180],
  Apparel: [18, 210],
  Bath: [9, 120],
};

/** Writes a whole store into the empty database `db`. Same seed, same store. */
export function buildStore(db: Database.Database, seed: number): void {
  const rng = new Rng(seed);
  db.exec(SCHEMA);
  setSiteNow(db, STORE_NOW);
  db.prepare(
    'INSERT INTO admin_users (username, password, name, session_token) VALUES (?, ?, ?, ?)',
  ).run(
    ADMIN_ACCOUNT.username,
    ADMIN_ACCOUNT.password,
    ADMIN_ACCOUNT.name,
    `s${hashString(`store-admin/${seed}`).toString(36)}${rng.fork('token').uint32().toString(36)}`,
  );
  const products = insertProducts(db, rng.fork('products'));
  const customers = insertCustomers(db, rng.fork('customers'));
  insertOrders(db, rng.fork('orders'), products, customers);
  insertReviews(db, rng.fork('reviews'), products);
}

interface ProductRow {
  id: number;
  sku: string;
  name: string;
  priceCents: number;
  /** How often orders pick it, so best sellers stand out. */
  popularity: number;
}

function insertProducts(db: Database.Database, rng: Rng): ProductRow[] {
  const insert = db.prepare(
    `INSERT INTO products (sku, name, category, price_cents, qty, status, color, size, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const categories = Object.keys(CATEGORIES);
  const names = new Set<string>();
  const skus = new Set<string>();
  const rows: ProductRow[] = [];
  for (let i = 0; i < STORE_SIZE.products; i++) {
    const category = categories[i % categories.length] as string;
    let name: string;
    do {
      name = `${rng.pick(PRODUCT_PREFIXES)} ${rng.pick(PRODUCT_MATERIALS)} ${rng.pick(CATEGORIES[category] as readonly string[])}`;
    } while (names.has(name));
    names.add(name);
    let sku: string;
    do {
      sku = `${category.slice(0, 3).toUpperCase()}-${rng.between(1000, 9999)}`;
    } while (skus.has(sku));
    skus.add(sku);
    const [low, high] = PRICE_RANGES[category] as readonly [number, number];
    const dollars = rng.between(low, high);
    const priceCents = dollars * 100 + rng.pick([0, 50, 95, 99]);
    const qty = rng.chance(0.08) ? 0 : rng.between(1, 240);
    const status = rng.chance(0.86) ? 'Enabled' : 'Disabled';
    const size = SIZED_CATEGORIES.has(category) ? rng.pick(SIZES) : 'One Size';
    const created = dateString(new Date(Date.UTC(2021, rng.int(12), 1 + rng.int(28))));
    const { lastInsertRowid } = insert.run(
      sku,
      name,
      category,
      priceCents,
      qty,
      status,
      rng.pick(COLORS),
      size,
      created,
    );
    rows.push({
      id: Number(lastInsertRowid),
      sku,
      name,
      priceCents,
      popularity: 1 + 12 * rng.float() ** 3,
    });
  }
  return rows;
}

function insertCustomers(db: Database.Database, rng: Rng): Array<{ id: number; city: string }> {
  const insert = db.prepare(
    `INSERT INTO customers (first_name, last_name, email, phone, group_name, street, city, zip, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const names = new Set<string>();
  const rows: Array<{ id: number; city: string }> = [];
  for (let i = 0; i < STORE_SIZE.customers; i++) {
    let first: string;
    let last: string;
    do {
      first = rng.pick(FIRST_NAMES);
      last = rng.pick(LAST_NAMES);
    } while (names.has(`${first} ${last}`));
    names.add(`${first} ${last}`);
    const email = `${first}.${last}@${rng.pick(EMAIL_DOMAINS)}`.toLowerCase();
    const phone = `555-${rng.between(100, 999)}-${rng.between(1000, 9999)}`;
    const group = rng.weighted(CUSTOMER_GROUPS, [10, 3, 3, 2]);
    const street = `${rng.between(1, 980)} ${rng.pick(STREET_NAMES)} ${rng.pick(STREET_KINDS)}`;
    const city = rng.pick(CITIES);
    const zip = String(rng.between(10000, 99999));
    const created = dateString(new Date(Date.UTC(2021, rng.int(12), 1 + rng.int(28))));
    const { lastInsertRowid } = insert.run(
      first,
      last,
      email,
      phone,
      group,
      street,
      city,
      zip,
      created,
    );
    rows.push({ id: Number(lastInsertRowid), city });
  }
  return rows;
}

const FIRST_DAY = Date.UTC(ORDER_YEARS[0] as number, 0, 1);
const LAST_DAY = Date.UTC(ORDER_YEARS.at(-1) as number, 11, 31, 23, 59);
/** Orders placed after this are recent: still open more often than not. */
const RECENT = Date.UTC(ORDER_YEARS.at(-1) as number, 7, 1);

function insertOrders(
  db: Database.Database,
  rng: Rng,
  products: readonly ProductRow[],
  customers: ReadonlyArray<{ id: number; city: string }>,
): void {
  const insertOrder = db.prepare(
    `INSERT INTO orders (number, customer_id, status, placed_at, ship_city, shipping_cents)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const insertItem = db.prepare(
    `INSERT INTO order_items (order_id, product_id, sku, name, price_cents, qty)
     VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const insertComment = db.prepare(
    'INSERT INTO order_comments (order_id, body, created_at) VALUES (?, ?, ?)',
  );
  const times = Array.from(
    { length: STORE_SIZE.orders },
    () => FIRST_DAY + Math.floor(rng.float() * (LAST_DAY - FIRST_DAY)),
  ).sort((a, b) => a - b);
  const weights = products.map((p) => p.popularity);
  const loyal = customers.map(() => 1 + 4 * rng.float() ** 2);
  for (const [i, time] of times.entries()) {
    const customer = rng.weighted(customers, loyal);
    const status =
      time >= RECENT
        ? rng.weighted(ORDER_STATUSES, [5, 4, 1, 1])
        : rng.weighted(ORDER_STATUSES, [0, 1, 30, 4]);
    const placed = new Date(time);
    const { lastInsertRowid } = insertOrder.run(
      String(100 + i).padStart(9, '0'),
      customer.id,
      status,
      `${dateString(placed)} ${placed.toISOString().slice(11, 16)}`,
      rng.chance(0.9) ? customer.city : rng.pick(CITIES),
      rng.pick([0, 500, 799, 1200]),
    );
    const orderId = Number(lastInsertRowid);
    const lines = rng.weighted([1, 2, 3, 4], [5, 4, 2, 1]);
    const chosen = new Set<ProductRow>();
    while (chosen.size < lines) chosen.add(rng.weighted(products, weights));
    for (const product of chosen) {
      insertItem.run(
        orderId,
        product.id,
        product.sku,
        product.name,
        product.priceCents,
        rng.weighted([1, 2, 3], [6, 3, 1]),
      );
    }
    if (rng.chance(0.25)) {
      const body = `${rng.pick(COMMENT_OPENERS)} ${rng.pick(COMMENT_TOPICS)}.`;
      const at = new Date(time + (1 + rng.int(48)) * 3600_000);
      insertComment.run(orderId, body, `${dateString(at)} ${at.toISOString().slice(11, 16)}`);
    }
  }
}

function insertReviews(db: Database.Database, rng: Rng, products: readonly ProductRow[]): void {
  const insert = db.prepare(
    `INSERT OR IGNORE INTO reviews (product_id, nickname, rating, title, body, status, created_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  );
  const weights = products.map((p) => p.popularity);
  for (let i = 0; i < STORE_SIZE.reviews; i++) {
    const product = rng.weighted(products, weights);
    const nickname = `${rng.pick(FIRST_NAMES)}${rng.pick(['', '', ` ${rng.pick(LAST_NAMES)[0]}.`])}`;
    const rating = rng.weighted([1, 2, 3, 4, 5], [1, 1, 2, 4, 4]);
    const band = rating <= 2 ? 'low' : rating === 3 ? 'mid' : 'high';
    const body = rng.sample(REVIEW_SENTENCES[band], 2).join(' ');
    const status = rng.weighted(['Approved', 'Pending', 'Rejected'], [14, 5, 2]);
    const at = new Date(FIRST_DAY + Math.floor(rng.float() * (LAST_DAY - FIRST_DAY)));
    insert.run(
      product.id,
      nickname,
      rating,
      rng.pick(REVIEW_TITLES[band]),
      body,
      status,
      dateString(at),
    );
  }
}

/** `2023-04-09`. */
function dateString(date: Date): string {
  return date.toISOString().slice(0, 10);
}
