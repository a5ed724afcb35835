/**
 * Reports: best sellers by year or month, and sales by month, with the period chosen by links
 * (every period has its own URL).
 */

import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { WebAppEnv } from '../web-app.ts';
import { formatMoney } from './format.ts';
import { filterLinks, query } from './layout.ts';
import { bestSellers, monthlySales } from './queries.ts';
import { page, type StoreContext } from './session.ts';
import { MONTH_NAMES, ORDER_YEARS } from './vocab.ts';

export function reportRoutes(app: Hono<WebAppEnv>): void {
  app.get('/admin/reports', (c) =>
    page(
      c,
      'Reports',
      html`<ul><li><a href="/admin/reports/bestsellers">Best sellers</a>: products by units sold in a year or month.</li>
<li><a href="/admin/reports/sales">Sales by month</a>: orders, cancellations, units and revenue per month.</li></ul>`,
    ),
  );
  app.get('/admin/reports/bestsellers', bestSellersPage);
  app.get('/admin/reports/sales', salesPage);
}

const LATEST_YEAR = ORDER_YEARS.at(-1) as number;

function readYear(c: StoreContext): number {
  const year = Number(c.req.query('year'));
  return ORDER_YEARS.includes(year) ? year : LATEST_YEAR;
}

function bestSellersPage(c: StoreContext) {
  const year = readYear(c);
  const monthParam = Number(c.req.query('month'));
  const month =
    Number.isInteger(monthParam) && monthParam >= 1 && monthParam <= 12 ? monthParam : 0;
  const period = month ? `${MONTH_NAMES[month - 1]} ${year}` : String(year);
  const rows = bestSellers(c.var.db, year, month || undefined);
  const base = '/admin/reports/bestsellers';
  const body = html`<p><a href="/admin/reports">Back to reports</a></p>
${filterLinks(
  'Year',
  ORDER_YEARS.map((y) => ({
    text: String(y),
    href: base + query({ year: y }),
    current: y === year,
  })),
)}
${filterLinks('Month', [
  { text: 'Whole year', href: base + query({ year }), current: !month },
  ...MONTH_NAMES.map((name, i) => ({
    text: name,
    href: base + query({ year, month: i + 1 }),
    current: month === i + 1,
  })),
])}
<h2 id="report-period">Best sellers of ${period}</h2>
${
  rows.length === 0
    ? html`<p>No sales in ${period}.</p>`
    : html`<table id="bestsellers"><thead><tr><th scope="col">Rank</th><th scope="col">Product</th><th scope="col">SKU</th><th scope="col">Units sold</th><th scope="col">Revenue</th></tr></thead>
<tbody>${rows.map(
        (r, i) =>
          html`<tr><td>${i + 1}</td><td><a href="/admin/products/${r.productId}">${r.name}</a></td><td>${r.sku}</td><td>${r.units}</td><td>${formatMoney(r.revenueCents)}</td></tr>`,
      )}</tbody></table>`
}`;
  return page(c, 'Best sellers', body);
}

function salesPage(c: StoreContext) {
  const year = readYear(c);
  const months = monthlySales(c.var.db, year);
  const sum = (key: 'orders' | 'canceled' | 'units' | 'revenueCents') =>
    months.reduce((s, m) => s + m[key], 0);
  const base = '/admin/reports/sales';
  const body = html`<p><a href="/admin/reports">Back to reports</a></p>
${filterLinks(
  'Year',
  ORDER_YEARS.map((y) => ({
    text: String(y),
    href: base + query({ year: y }),
    current: y === year,
  })),
)}
<h2 id="report-period">Sales of ${year}</h2>
<table id="sales"><thead><tr><th scope="col">Month</th><th scope="col">Orders</th><th scope="col">Canceled</th><th scope="col">Units sold</th><th scope="col">Revenue</th></tr></thead>
<tbody>${months.map(
    (m) =>
      html`<tr><th scope="row">${MONTH_NAMES[m.month - 1]}</th><td>${m.orders}</td><td>${m.canceled}</td><td>${m.units}</td><td>${formatMoney(m.revenueCents)}</td></tr>`,
  )}
<tr><th scope="row">Total</th><td>${sum('orders')}</td><td>${sum('canceled')}</td><td>${sum('units')}</td><td>${formatMoney(sum('revenueCents'))}</td></tr></tbody></table>`;
  return page(c, 'Sales by month', body);
}
