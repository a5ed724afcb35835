import Database from 'better-sqlite3';
import { beforeEach, describe, expect, it } from 'vitest';
import { INSTANCE_HEADER, templateDatabase, webAppRouter } from '../web-app.ts';
import { formatMoney } from './format.ts';
import { ADMIN_ACCOUNT, buildStore, STORE_SIZE } from './generate.ts';
import { SESSION_COOKIE } from './session.ts';
import { storeApp } from './store-app.ts';

/** The store on fresh copies of the seed-0 database, one per instance id, signed in by default. */
function harness() {
  const template = templateDatabase(storeApp, 0);
  const dbs = new Map<string, Database.Database>([['default', new Database(template)]]);
  const app = webAppRouter(storeApp, (id) => dbs.get(id));
  const db = dbs.get('default') as Database.Database;
  const token = storeApp.loginCookies?.(db)[SESSION_COOKIE] as string;
  const request = async (
    path: string,
    init: { form?: Record<string, string>; instance?: string; signedIn?: boolean } = {},
  ) => {
    const headers: Record<string, string> = {};
    if (init.signedIn !== false) headers.cookie = `${SESSION_COOKIE}=${token}`;
    if (init.instance) headers[INSTANCE_HEADER] = init.instance;
    const response = await app.request(path, {
      method: init.form ? 'POST' : 'GET',
      headers,
      ...(init.form ? { body: new URLSearchParams(init.form) } : {}),
    });
    return { response, text: await response.text() };
  };
  /** Follows a post's redirect like a browser, carrying the flash cookie. */
  const post = async (path: string, form: Record<string, string>, instance?: string) => {
    const { response } = await request(path, { form, ...(instance ? { instance } : {}) });
    expect(response.status).toBe(303);
    const flash = /store_flash=([^;]*)/.exec(response.headers.get('set-cookie') ?? '')?.[1];
    const headers: Record<string, string> = {
      cookie: `${SESSION_COOKIE}=${token}${flash ? `; store_flash=${flash}` : ''}`,
    };
    if (instance) headers[INSTANCE_HEADER] = instance;
    const landed = await app.request(response.headers.get('location') as string, { headers });
    return landed.text();
  };
  return { dbs, db, request, post, template };
}

const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

describe('store generation', () => {
  const dump = (db: Database.Database) =>
    ['products', 'customers', 'orders', 'order_items', 'order_comments', 'reviews', 'admin_users']
      .map((table) => JSON.stringify(db.prepare(`SELECT * FROM ${table} ORDER BY id`).all()))
      .join('\n');
  const build = (seed: number) => {
    const db = new Database(':memory:');
    buildStore(db, seed);
    return db;
  };

  it('builds the same store from the same seed and another from another seed', () => {
    expect(dump(build(3))).toBe(dump(build(3)));
    expect(dump(build(3))).not.toBe(dump(build(4)));
  });

  it('fills every table with unique names where tasks point at rows', () => {
    const db = build(0);
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    expect(count('SELECT COUNT(*) AS n FROM products')).toBe(STORE_SIZE.products);
    expect(count('SELECT COUNT(DISTINCT name) AS n FROM products')).toBe(STORE_SIZE.products);
    expect(count("SELECT COUNT(DISTINCT first_name || ' ' || last_name) AS n FROM customers")).toBe(
      STORE_SIZE.customers,
    );
    expect(count('SELECT COUNT(*) AS n FROM orders')).toBe(STORE_SIZE.orders);
    expect(count('SELECT COUNT(*) AS n FROM order_items')).toBeGreaterThan(STORE_SIZE.orders);
    for (const status of ['Pending', 'Processing', 'Complete', 'Canceled']) {
      expect(count(`SELECT COUNT(*) AS n FROM orders WHERE status = '${status}'`)).toBeGreaterThan(
        10,
      );
    }
  });
});

describe('store pages', () => {
  let h: ReturnType<typeof harness>;
  beforeEach(() => {
    h = harness();
  });

  it('sends visitors without a session to the login form, which signs them in', async () => {
    const { response } = await h.request('/admin/orders?status=Pending', { signedIn: false });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe(
      `/admin/login?next=${encodeURIComponent('/admin/orders?status=Pending')}`,
    );
    const login = await h.request('/admin/login', { signedIn: false });
    expect(login.text).toContain('<label for="password">Password</label>');
    const wrong = await h.request('/admin/login', {
      signedIn: false,
      form: { username: 'admin', password: 'nope', next: '/admin' },
    });
    expect(wrong.response.status).toBe(401);
    expect(wrong.text).toContain('Wrong username or password.');
    const right = await h.request('/admin/login', {
      signedIn: false,
      form: { ...ADMIN_ACCOUNT, next: '/admin/orders' },
    });
    expect(right.response.status).toBe(303);
    expect(right.response.headers.get('location')).toBe('/admin/orders');
    expect(right.response.headers.get('set-cookie')).toContain(
      `${SESSION_COOKIE}=${storeApp.loginCookies?.(h.db)[SESSION_COOKIE]}`,
    );
  });

  it('renders the dashboard with landmarks, navigation and counts from the data', async () => {
    const { text: page } = await h.request('/admin');
    expect(page).toContain('<nav aria-label="Main">');
    expect(page).toContain('<main>');
    const pending = (
      h.db.prepare("SELECT COUNT(*) AS n FROM orders WHERE status = 'Pending'").get() as {
        n: number;
      }
    ).n;
    expect(page).toContain(`<a href="/admin/orders?status=Pending">${pending}</a>`);
  });

  it('searches, filters, sorts and pages the product grid', async () => {
    const product = h.db.prepare('SELECT * FROM products WHERE id = 7').get() as {
      sku: string;
      name: string;
    };
    const found = await h.request(`/admin/products?q=${product.sku}`);
    expect(found.text).toContain('1 record found');
    expect(found.text).toContain(`<a href="/admin/products/7">${product.name}</a>`);

    const sorted = await h.request('/admin/products?sort=price&dir=desc');
    const prices = [...sorted.text.matchAll(/<td>\$([\d,]+\.\d\d)<\/td>/g)].map((m) =>
      Number((m[1] as string).replace(',', '')),
    );
    expect(prices).toHaveLength(20);
    expect(prices).toEqual([...prices].sort((a, b) => b - a));
    expect(sorted.text).toContain('Page 1 of 8');
    expect(sorted.text).toContain('>Next page</a>');

    const out = await h.request('/admin/products?stock=out&category=Garden');
    const expected = (
      h.db
        .prepare("SELECT COUNT(*) AS n FROM products WHERE qty = 0 AND category = 'Garden'")
        .get() as { n: number }
    ).n;
    expect(text(out.text)).toContain(`${expected} record${expected === 1 ? '' : 's'} found`);
  });

  it('saves a product form and refuses a bad price without changing anything', async () => {
    const saved = await h.post('/admin/products/5', {
      name: 'Renamed Thing',
      price: '12.5',
      qty: '9',
      color: 'Teal',
      status: 'Disabled',
    });
    expect(saved).toContain('You saved the product.');
    expect(saved).toContain('<td id="summary-price">$12.50</td>');
    expect(saved).toContain('<td id="summary-status">Disabled</td>');
    const refused = await h.post('/admin/products/5', {
      name: 'Renamed Thing',
      price: 'cheap',
      qty: '9',
      color: 'Teal',
      status: 'Enabled',
    });
    expect(refused).toContain('Price &quot;cheap&quot; is not an amount such as 19.99.');
    expect(refused).toContain('<td id="summary-status">Disabled</td>');
    expect((await h.request('/admin/products/9999')).response.status).toBe(404);
  });

  it('creates a product filed under its SKU prefix', async () => {
    const created = await h.post('/admin/products', {
      sku: 'gar-0042',
      name: 'Test Trowel',
      price: '7',
      qty: '3',
      color: '',
      status: 'Enabled',
    });
    expect(created).toContain('You created the product.');
    const grid = await h.request('/admin/products?q=GAR-0042');
    expect(grid.text).toContain('Test Trowel');
    expect(grid.text).toContain('<td>Garden</td>');
  });

  it('moves orders through their statuses, cancels only after confirmation, keeps comments', async () => {
    const pending = h.db
      .prepare("SELECT id, number FROM orders WHERE status = 'Pending'")
      .get() as {
      id: number;
      number: string;
    };
    const processing = await h.post(`/admin/orders/${pending.id}/status`, { to: 'Processing' });
    expect(processing).toContain('<td id="summary-status">Processing</td>');
    const skipped = await h.post(`/admin/orders/${pending.id}/status`, { to: 'Pending' });
    expect(skipped).toContain('A processing order cannot become Pending.');
    const confirm = await h.request(`/admin/orders/${pending.id}/cancel`);
    expect(confirm.text).toContain(`Cancel order #${pending.number}?`);
    expect(confirm.text).toContain('Yes, cancel the order');
    expect(h.db.prepare('SELECT status FROM orders WHERE id = ?').get(pending.id)).toEqual({
      status: 'Processing',
    });
    const canceled = await h.post(`/admin/orders/${pending.id}/cancel`, {});
    expect(canceled).toContain('<td id="summary-status">Canceled</td>');
    const commented = await h.post(`/admin/orders/${pending.id}/comments`, {
      comment: 'Refund sent today.',
    });
    expect(commented).toMatch(/<div id="order-comments">[\s\S]*Refund sent today\.[\s\S]*<\/div>/);
    // Dated by the site clock, a minute a write, never by the wall clock: the same every run.
    const again = await h.post(`/admin/orders/${pending.id}/comments`, { comment: 'Checked.' });
    expect(commented).toContain('Jan 3, 2025 09:01: Refund sent today.');
    expect(again).toContain('Jan 3, 2025 09:02: Checked.');
  });

  it('saves customers and validates their email', async () => {
    const customer = h.db.prepare('SELECT * FROM customers WHERE id = 3').get() as Record<
      string,
      string
    >;
    const form = { ...customer, group: 'VIP', email: 'new.address@mailbox.test' } as Record<
      string,
      string
    >;
    const saved = await h.post('/admin/customers/3', form);
    expect(saved).toContain('<td id="summary-group">VIP</td>');
    expect(saved).toContain('<td id="summary-email">new.address@mailbox.test</td>');
    const refused = await h.post('/admin/customers/3', { ...form, email: 'not-an-email' });
    expect(refused).toContain('is not an address such as');
    expect(refused).toContain('<td id="summary-email">new.address@mailbox.test</td>');
  });

  it('moderates reviews and deletes one only through its confirmation page', async () => {
    const review = h.db
      .prepare("SELECT id, product_id, nickname FROM reviews WHERE status = 'Pending'")
      .get() as { id: number; product_id: number; nickname: string };
    const approved = await h.post(`/admin/reviews/${review.id}/status`, { to: 'Approved' });
    expect(approved).toContain('<td id="summary-status">Approved</td>');
    expect(approved).not.toContain('>Approve review</button>');
    const confirm = await h.request(`/admin/reviews/${review.id}/delete`);
    expect(confirm.text).toContain('Yes, delete the review');
    const deleted = await h.post(`/admin/reviews/${review.id}/delete`, {});
    expect(deleted).toContain(`You deleted the review`);
    expect((await h.request(`/admin/reviews/${review.id}`)).response.status).toBe(404);
  });

  it('reports best sellers and monthly sales that agree with the raw order lines', async () => {
    const lines = h.db
      .prepare(
        `SELECT o.placed_at, o.status, o.shipping_cents, o.id AS order_id, i.product_id, i.qty, i.price_cents
         FROM order_items i JOIN orders o ON o.id = i.order_id`,
      )
      .all() as Array<{
      placed_at: string;
      status: string;
      shipping_cents: number;
      order_id: number;
      product_id: number;
      qty: number;
      price_cents: number;
    }>;
    const units = new Map<number, number>();
    for (const line of lines) {
      if (line.placed_at.startsWith('2023-05') && line.status !== 'Canceled') {
        units.set(line.product_id, (units.get(line.product_id) ?? 0) + line.qty);
      }
    }
    const top = Math.max(...units.values());
    const report = await h.request('/admin/reports/bestsellers?year=2023&month=5');
    expect(report.text).toContain('Best sellers of May 2023');
    const firstRow =
      /<tbody><tr><td>1<\/td><td><a href="\/admin\/products\/(\d+)">[^<]+<\/a><\/td><td>[^<]+<\/td><td>(\d+)<\/td>/.exec(
        report.text,
      );
    expect(Number(firstRow?.[2])).toBe(top);
    expect(units.get(Number(firstRow?.[1]))).toBe(top);

    const may = lines.filter((l) => l.placed_at.startsWith('2023-05'));
    const orders = new Set(may.map((l) => l.order_id));
    const revenue =
      may.filter((l) => l.status !== 'Canceled').reduce((s, l) => s + l.qty * l.price_cents, 0) +
      [...new Map(may.filter((l) => l.status !== 'Canceled').map((l) => [l.order_id, l])).values()]
        .map((l) => l.shipping_cents)
        .reduce((s, c) => s + c, 0);
    const sales = await h.request('/admin/reports/sales?year=2023');
    expect(sales.text).toContain(`<tr><th scope="row">May</th><td>${orders.size}</td>`);
    expect(sales.text).toMatch(
      new RegExp(
        `<th scope="row">May</th>(<td>[^<]*</td>){3}<td>${formatMoney(revenue).replace('$', '\\$')}</td>`,
      ),
    );
  });

  it('keeps each episode instance to itself', async () => {
    h.dbs.set('episode-a', new Database(h.template));
    h.dbs.set('episode-b', new Database(h.template));
    await h.post(
      '/admin/products/4',
      { name: 'Only In A', price: '1.00', qty: '1', color: 'Navy', status: 'Enabled' },
      'episode-a',
    );
    const inA = await h.request('/admin/products/4', { instance: 'episode-a' });
    const inB = await h.request('/admin/products/4', { instance: 'episode-b' });
    const inDefault = await h.request('/admin/products/4');
    expect(inA.text).toContain('<h1>Only In A</h1>');
    expect(inB.text).not.toContain('Only In A');
    expect(inDefault.text).not.toContain('Only In A');
    const gone = await h.request('/admin', { instance: 'episode-c' });
    expect(gone.response.status).toBe(410);
  });
});
