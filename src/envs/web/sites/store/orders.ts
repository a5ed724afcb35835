/**
 * Sales pages: the order grid (search, status filter, sorting, pages) and the order page (summary,
 * line items, comment history, status actions; cancelling asks for confirmation first).
 */

import type { Hono } from 'hono';
import { html } from 'hono/html';
import { nextTimestamp } from '../site-clock.ts';
import type { WebAppEnv } from '../web-app.ts';
import { formatDateTime, formatMoney, storedTime } from './format.ts';
import { ORDER_STATUSES } from './generate.ts';
import { PER_PAGE, readGridState } from './grid-state.ts';
import { filterLinks, grid, query, searchForm, summary } from './layout.ts';
import { notFound, page, redirectWith, type StoreContext } from './session.ts';

/** An order with what its grid and page show. */
export interface OrderView {
  id: number;
  number: string;
  status: string;
  placed_at: string;
  ship_city: string;
  shipping_cents: number;
  customer_id: number;
  customer: string;
  email: string;
  subtotal_cents: number;
  units: number;
}

/** Orders with their customer's name and their totals, for `FROM (…) o`. */
export const ORDER_VIEW_SQL = `
SELECT o.id, o.number, o.status, o.placed_at, o.ship_city, o.shipping_cents, o.customer_id,
  c.first_name || ' ' || c.last_name AS customer, c.email,
  (SELECT COALESCE(SUM(price_cents * qty), 0) FROM order_items WHERE order_id = o.id) AS subtotal_cents,
  (SELECT COALESCE(SUM(qty), 0) FROM order_items WHERE order_id = o.id) AS units
FROM orders o JOIN customers c ON c.id = o.customer_id`;

const SORTS = {
  number: 'number',
  placed: 'placed_at',
  customer: 'customer, number',
  total: 'subtotal_cents + shipping_cents',
  status: 'status, number',
};

/** The status actions of an order page: button label, new status, the statuses it applies to. */
export const STATUS_ACTIONS = [
  { label: 'Start processing', to: 'Processing', from: ['Pending'] },
  { label: 'Mark as complete', to: 'Complete', from: ['Processing'] },
] as const;

export function orderRoutes(app: Hono<WebAppEnv>): void {
  app.get('/admin/orders', orderGrid);
  app.get('/admin/orders/:id{[0-9]+}', orderPage);
  app.post('/admin/orders/:id{[0-9]+}/status', changeStatus);
  app.get('/admin/orders/:id{[0-9]+}/cancel', confirmCancel);
  app.post('/admin/orders/:id{[0-9]+}/cancel', cancelOrder);
  app.post('/admin/orders/:id{[0-9]+}/comments', addComment);
}

function orderGrid(c: StoreContext) {
  const state = readGridState(c, '/admin/orders', {
    sorts: SORTS,
    sort: 'placed',
    dir: 'desc',
    filters: ['status'],
  });
  const { status } = state.filters;
  const where: string[] = [];
  const args: unknown[] = [];
  if (state.q) {
    where.push('(number LIKE ? OR customer LIKE ?)');
    args.push(`%${state.q.replace(/^#/, '')}%`, `%${state.q}%`);
  }
  if (status) {
    where.push('status = ?');
    args.push(status);
  }
  const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const db = c.var.db;
  const total = (
    db.prepare(`SELECT COUNT(*) AS n FROM (${ORDER_VIEW_SQL}) ${clause}`).get(...args) as {
      n: number;
    }
  ).n;
  const rows = db
    .prepare(
      `SELECT * FROM (${ORDER_VIEW_SQL}) ${clause} ORDER BY ${state.orderBy}, id LIMIT ? OFFSET ?`,
    )
    .all(...args, PER_PAGE, (state.page - 1) * PER_PAGE) as OrderView[];
  const link = (s: string | undefined) => `/admin/orders${query({ ...state.params, status: s })}`;
  const body = html`${searchForm({ action: '/admin/orders', label: 'Search orders', value: state.q, keep: { status } })}
${filterLinks('Status', [
  { text: 'All orders', href: link(undefined), current: !status },
  ...ORDER_STATUSES.map((s) => ({ text: s, href: link(s), current: status === s })),
])}
${grid<OrderView>({
  id: 'grid',
  caption: 'Orders',
  columns: [
    {
      header: 'Order',
      sort: 'number',
      cell: (o) => html`<a href="/admin/orders/${o.id}">#${o.number}</a>`,
    },
    { header: 'Placed', sort: 'placed', cell: (o) => formatDateTime(o.placed_at) },
    { header: 'Customer', sort: 'customer', cell: (o) => o.customer },
    { header: 'Ship to', cell: (o) => o.ship_city },
    { header: 'Status', sort: 'status', cell: (o) => o.status },
    {
      header: 'Grand total',
      sort: 'total',
      cell: (o) => formatMoney(o.subtotal_cents + o.shipping_cents),
    },
  ],
  rows,
  total,
  perPage: PER_PAGE,
  state,
})}`;
  return page(c, 'Orders', body);
}

function findOrder(c: StoreContext): OrderView | undefined {
  return c.var.db
    .prepare(`SELECT * FROM (${ORDER_VIEW_SQL}) WHERE id = ?`)
    .get(Number(c.req.param('id'))) as OrderView | undefined;
}

function orderPage(c: StoreContext) {
  const order = findOrder(c);
  if (!order) return notFound(c, `Order ${c.req.param('id')}`, '/admin/orders', 'orders');
  const db = c.var.db;
  const items = db
    .prepare('SELECT * FROM order_items WHERE order_id = ? ORDER BY id')
    .all(order.id) as Array<{
    product_id: number;
    sku: string;
    name: string;
    price_cents: number;
    qty: number;
  }>;
  const comments = db
    .prepare('SELECT body, created_at FROM order_comments WHERE order_id = ? ORDER BY id')
    .all(order.id) as Array<{ body: string; created_at: string }>;
  const actions = STATUS_ACTIONS.filter((a) =>
    (a.from as readonly string[]).includes(order.status),
  );
  const cancellable = order.status === 'Pending' || order.status === 'Processing';
  const body = html`<p><a href="/admin/orders">Back to orders</a></p>
${summary('Order summary', [
  ['Order number', `#${order.number}`],
  ['Status', order.status, 'summary-status'],
  ['Placed', formatDateTime(order.placed_at)],
  ['Customer', html`<a href="/admin/customers/${order.customer_id}">${order.customer}</a>`],
  ['Email', order.email],
  ['Ship to', order.ship_city],
  ['Items ordered', order.units],
  ['Subtotal', formatMoney(order.subtotal_cents)],
  ['Shipping', formatMoney(order.shipping_cents)],
  ['Grand total', formatMoney(order.subtotal_cents + order.shipping_cents), 'summary-total'],
])}
${
  actions.length > 0 || cancellable
    ? html`<h2>Order actions</h2>
${actions.map(
  (a) => html`<form method="post" action="/admin/orders/${order.id}/status" style="display:inline">
<input type="hidden" name="to" value="${a.to}"><button type="submit">${a.label}</button></form> `,
)}
${cancellable ? html`<a href="/admin/orders/${order.id}/cancel">Cancel order</a>` : ''}`
    : ''
}
<h2>Items ordered</h2>
<table id="order-items"><thead><tr><th scope="col">Product</th><th scope="col">SKU</th><th scope="col">Price</th><th scope="col">Qty</th><th scope="col">Row total</th></tr></thead>
<tbody>${items.map(
    (i) =>
      html`<tr><td><a href="/admin/products/${i.product_id}">${i.name}</a></td><td>${i.sku}</td><td>${formatMoney(i.price_cents)}</td><td>${i.qty}</td><td>${formatMoney(i.price_cents * i.qty)}</td></tr>`,
  )}</tbody></table>
<h2>Comments</h2>
<div id="order-comments">${
    comments.length === 0
      ? html`<p>No comments yet.</p>`
      : html`<ul>${comments.map((m) => html`<li>${formatDateTime(m.created_at)}: ${m.body}</li>`)}</ul>`
  }</div>
<form method="post" action="/admin/orders/${order.id}/comments">
<p><label for="comment">Comment</label> <textarea id="comment" name="comment" rows="2" cols="50"></textarea></p>
<p><button type="submit">Add comment</button></p>
</form>`;
  return page(c, `Order #${order.number}`, body);
}

async function changeStatus(c: StoreContext) {
  const order = findOrder(c);
  if (!order) return notFound(c, `Order ${c.req.param('id')}`, '/admin/orders', 'orders');
  const form = await c.req.parseBody();
  const action = STATUS_ACTIONS.find((a) => a.to === form.to);
  const back = `/admin/orders/${order.id}`;
  if (!action || !(action.from as readonly string[]).includes(order.status)) {
    return redirectWith(c, back, {
      kind: 'error',
      text: `A ${order.status.toLowerCase()} order cannot become ${String(form.to ?? 'that')}.`,
    });
  }
  c.var.db.prepare('UPDATE orders SET status = ? WHERE id = ?').run(action.to, order.id);
  return redirectWith(c, back, {
    kind: 'success',
    text: `Order #${order.number} is now ${action.to.toLowerCase()}.`,
  });
}

function confirmCancel(c: StoreContext) {
  const order = findOrder(c);
  if (!order) return notFound(c, `Order ${c.req.param('id')}`, '/admin/orders', 'orders');
  const body = html`<p>Cancel order #${order.number} for ${order.customer} (${formatMoney(order.subtotal_cents + order.shipping_cents)})? This cannot be undone.</p>
<form method="post" action="/admin/orders/${order.id}/cancel"><button type="submit">Yes, cancel the order</button></form>
<p><a href="/admin/orders/${order.id}">No, keep the order</a></p>`;
  return page(c, `Cancel order #${order.number}?`, body);
}

function cancelOrder(c: StoreContext) {
  const order = findOrder(c);
  if (!order) return notFound(c, `Order ${c.req.param('id')}`, '/admin/orders', 'orders');
  const back = `/admin/orders/${order.id}`;
  if (order.status !== 'Pending' && order.status !== 'Processing') {
    return redirectWith(c, back, {
      kind: 'error',
      text: `Order #${order.number} is ${order.status.toLowerCase()} and cannot be canceled.`,
    });
  }
  c.var.db.prepare("UPDATE orders SET status = 'Canceled' WHERE id = ?").run(order.id);
  return redirectWith(c, back, { kind: 'success', text: `You canceled order #${order.number}.` });
}

async function addComment(c: StoreContext) {
  const order = findOrder(c);
  if (!order) return notFound(c, `Order ${c.req.param('id')}`, '/admin/orders', 'orders');
  const form = await c.req.parseBody();
  const text = typeof form.comment === 'string' ? form.comment.trim() : '';
  const back = `/admin/orders/${order.id}`;
  if (!text) return redirectWith(c, back, { kind: 'error', text: 'Write a comment first.' });
  c.var.db
    .prepare('INSERT INTO order_comments (order_id, body, created_at) VALUES (?, ?, ?)')
    .run(order.id, text, storedTime(nextTimestamp(c.var.db)));
  return redirectWith(c, back, { kind: 'success', text: 'You added a comment.' });
}
