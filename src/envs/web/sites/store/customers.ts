/**
 * Customer pages: the customer grid (search, group filter, sorting, pages) and the customer page
 * (summary, edit form with the group as radio buttons, the customer's orders).
 */

import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { WebAppEnv } from '../web-app.ts';
import { formatDate, formatDateTime, formatMoney } from './format.ts';
import { PER_PAGE, readGridState } from './grid-state.ts';
import { filterLinks, grid, query, searchForm, summary } from './layout.ts';
import { ORDER_VIEW_SQL, type OrderView } from './orders.ts';
import { notFound, page, redirectWith, type StoreContext } from './session.ts';
import { CUSTOMER_GROUPS } from './vocab.ts';

interface CustomerRow {
  id: number;
  first_name: string;
  last_name: string;
  name: string;
  email: string;
  phone: string;
  group_name: string;
  street: string;
  city: string;
  zip: string;
  created_at: string;
  orders: number;
}

const CUSTOMER_VIEW_SQL = `
SELECT c.*, c.first_name || ' ' || c.last_name AS name,
  (SELECT COUNT(*) FROM orders WHERE customer_id = c.id) AS orders
FROM customers c`;

const SORTS = {
  name: 'name',
  email: 'email',
  group: 'group_name, name',
  city: 'city, name',
  orders: 'orders',
};

/** The editable fields of a customer: form name, label, column. */
const FIELDS = [
  ['first_name', 'First name'],
  ['last_name', 'Last name'],
  ['email', 'Email'],
  ['phone', 'Phone'],
  ['street', 'Street address'],
  ['city', 'City'],
  ['zip', 'ZIP code'],
] as const;

export function customerRoutes(app: Hono<WebAppEnv>): void {
  app.get('/admin/customers', customerGrid);
  app.get('/admin/customers/:id{[0-9]+}', customerPage);
  app.post('/admin/customers/:id{[0-9]+}', saveCustomer);
}

function customerGrid(c: StoreContext) {
  const state = readGridState(c, '/admin/customers', {
    sorts: SORTS,
    sort: 'name',
    dir: 'asc',
    filters: ['group'],
  });
  const { group } = state.filters;
  const where: string[] = [];
  const args: unknown[] = [];
  if (state.q) {
    where.push('(name LIKE ? OR email LIKE ?)');
    args.push(`%${state.q}%`, `%${state.q}%`);
  }
  if (group) {
    where.push('group_name = ?');
    args.push(group);
  }
  const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const db = c.var.db;
  const total = (
    db.prepare(`SELECT COUNT(*) AS n FROM (${CUSTOMER_VIEW_SQL}) ${clause}`).get(...args) as {
      n: number;
    }
  ).n;
  const rows = db
    .prepare(
      `SELECT * FROM (${CUSTOMER_VIEW_SQL}) ${clause} ORDER BY ${state.orderBy}, id LIMIT ? OFFSET ?`,
    )
    .all(...args, PER_PAGE, (state.page - 1) * PER_PAGE) as CustomerRow[];
  const link = (g: string | undefined) => `/admin/customers${query({ ...state.params, group: g })}`;
  const body = html`${searchForm({ action: '/admin/customers', label: 'Search customers', value: state.q, keep: { group } })}
${filterLinks('Group', [
  { text: 'All groups', href: link(undefined), current: !group },
  ...CUSTOMER_GROUPS.map((g) => ({ text: g, href: link(g), current: group === g })),
])}
${grid<CustomerRow>({
  id: 'grid',
  caption: 'Customers',
  columns: [
    {
      header: 'Name',
      sort: 'name',
      cell: (r) => html`<a href="/admin/customers/${r.id}">${r.name}</a>`,
    },
    { header: 'Email', sort: 'email', cell: (r) => r.email },
    { header: 'Group', sort: 'group', cell: (r) => r.group_name },
    { header: 'City', sort: 'city', cell: (r) => r.city },
    { header: 'Orders', sort: 'orders', cell: (r) => r.orders },
  ],
  rows,
  total,
  perPage: PER_PAGE,
  state,
})}`;
  return page(c, 'Customers', body);
}

function findCustomer(c: StoreContext): CustomerRow | undefined {
  return c.var.db
    .prepare(`SELECT * FROM (${CUSTOMER_VIEW_SQL}) WHERE id = ?`)
    .get(Number(c.req.param('id'))) as CustomerRow | undefined;
}

function customerPage(c: StoreContext) {
  const customer = findCustomer(c);
  if (!customer) {
    return notFound(c, `Customer ${c.req.param('id')}`, '/admin/customers', 'customers');
  }
  const orders = c.var.db
    .prepare(`SELECT * FROM (${ORDER_VIEW_SQL}) WHERE customer_id = ? ORDER BY placed_at DESC`)
    .all(customer.id) as OrderView[];
  const lifetime = orders
    .filter((o) => o.status !== 'Canceled')
    .reduce((sum, o) => sum + o.subtotal_cents + o.shipping_cents, 0);
  const body = html`<p><a href="/admin/customers">Back to customers</a></p>
${summary('Customer summary', [
  ['Name', customer.name],
  ['Email', customer.email, 'summary-email'],
  ['Phone', customer.phone, 'summary-phone'],
  ['Group', customer.group_name, 'summary-group'],
  ['Address', `${customer.street}, ${customer.city} ${customer.zip}`, 'summary-address'],
  ['Customer since', formatDate(customer.created_at)],
  ['Orders placed', customer.orders],
  ['Lifetime sales', formatMoney(lifetime)],
])}
<h2>Edit customer</h2>
<form class="edit" method="post" action="/admin/customers/${customer.id}" aria-label="Save customer">
${FIELDS.map(
  ([name, label]) =>
    html`<p><label for="customer-${name}">${label}</label> <input type="text" id="customer-${name}" name="${name}" value="${customer[name]}"></p>`,
)}
<fieldset><legend>Customer group</legend>
${CUSTOMER_GROUPS.map(
  (g) =>
    html`<label><input type="radio" name="group" value="${g}"${customer.group_name === g ? html` checked` : ''}> ${g}</label> `,
)}
</fieldset>
<p><button type="submit">Save customer</button></p>
</form>
<h2>Orders</h2>
${
  orders.length === 0
    ? html`<p>No orders yet.</p>`
    : html`<table id="customer-orders"><thead><tr><th scope="col">Order</th><th scope="col">Placed</th><th scope="col">Status</th><th scope="col">Grand total</th></tr></thead>
<tbody>${orders.map(
        (o) =>
          html`<tr><td><a href="/admin/orders/${o.id}">#${o.number}</a></td><td>${formatDateTime(o.placed_at)}</td><td>${o.status}</td><td>${formatMoney(o.subtotal_cents + o.shipping_cents)}</td></tr>`,
      )}</tbody></table>`
}`;
  return page(c, customer.name, body);
}

async function saveCustomer(c: StoreContext) {
  const customer = findCustomer(c);
  if (!customer) {
    return notFound(c, `Customer ${c.req.param('id')}`, '/admin/customers', 'customers');
  }
  const form = await c.req.parseBody();
  const values = Object.fromEntries(
    FIELDS.map(([name]) => [name, typeof form[name] === 'string' ? form[name].trim() : '']),
  ) as Record<(typeof FIELDS)[number][0], string>;
  const group = typeof form.group === 'string' ? form.group : '';
  const back = `/admin/customers/${customer.id}`;
  const missing = FIELDS.find(([name]) => !values[name]);
  const problem = missing
    ? `${missing[1]} is required.`
    : !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(values.email)
      ? `Email "${values.email}" is not an address such as name@example.test.`
      : !CUSTOMER_GROUPS.includes(group)
        ? `Choose a customer group: ${CUSTOMER_GROUPS.join(', ')}.`
        : c.var.db
              .prepare('SELECT 1 FROM customers WHERE email = ? AND id != ?')
              .get(values.email, customer.id)
          ? `Another customer already uses ${values.email}.`
          : undefined;
  if (problem) return redirectWith(c, back, { kind: 'error', text: problem });
  c.var.db
    .prepare(
      `UPDATE customers SET first_name = ?, last_name = ?, email = ?, phone = ?, street = ?,
       city = ?, zip = ?, group_name = ? WHERE id = ?`,
    )
    .run(
      values.first_name,
      values.last_name,
      values.email,
      values.phone,
      values.street,
      values.city,
      values.zip,
      group,
      customer.id,
    );
  return redirectWith(c, back, { kind: 'success', text: 'You saved the customer.' });
}
