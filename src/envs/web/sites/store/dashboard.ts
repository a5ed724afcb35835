/** The landing page after signing in: what needs attention, and the latest orders. */

import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { WebAppEnv } from '../web-app.ts';
import { formatDateTime, formatMoney } from './format.ts';
import { summary } from './layout.ts';
import { ORDER_VIEW_SQL, type OrderView } from './orders.ts';
import { page } from './session.ts';

export function dashboardRoutes(app: Hono<WebAppEnv>): void {
  app.get('/admin', (c) => {
    const db = c.var.db;
    const count = (sql: string) => (db.prepare(sql).get() as { n: number }).n;
    const latest = db
      .prepare(`SELECT * FROM (${ORDER_VIEW_SQL}) ORDER BY placed_at DESC, id DESC LIMIT 5`)
      .all() as OrderView[];
    const body = html`${summary('Needs attention', [
      [
        'Pending orders',
        html`<a href="/admin/orders?status=Pending">${count("SELECT COUNT(*) AS n FROM orders WHERE status = 'Pending'")}</a>`,
      ],
      [
        'Pending reviews',
        html`<a href="/admin/reviews?status=Pending">${count("SELECT COUNT(*) AS n FROM reviews WHERE status = 'Pending'")}</a>`,
      ],
      [
        'Out of stock products',
        html`<a href="/admin/products?stock=out">${count('SELECT COUNT(*) AS n FROM products WHERE qty = 0')}</a>`,
      ],
    ])}
<h2>Latest orders</h2>
<table id="latest-orders"><thead><tr><th scope="col">Order</th><th scope="col">Placed</th><th scope="col">Customer</th><th scope="col">Status</th><th scope="col">Grand total</th></tr></thead>
<tbody>${latest.map(
      (o) =>
        html`<tr><td><a href="/admin/orders/${o.id}">#${o.number}</a></td><td>${formatDateTime(o.placed_at)}</td><td>${o.customer}</td><td>${o.status}</td><td>${formatMoney(o.subtotal_cents + o.shipping_cents)}</td></tr>`,
    )}</tbody></table>`;
    return page(c, 'Dashboard', body);
  });
}
