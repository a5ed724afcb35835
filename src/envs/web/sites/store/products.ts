/**
 * Catalog pages: the product grid (search, status/category/stock filters, sorting, pages), the
 * product page (summary, edit form, reviews) and the new-product form.
 */

import type { Hono } from 'hono';
import { html } from 'hono/html';
import { nextTimestamp } from '../site-clock.ts';
import type { WebAppEnv } from '../web-app.ts';
import { formatMoney, parseMoney, plainMoney, storedTime } from './format.ts';
import { PRODUCT_STATUSES } from './generate.ts';
import { PER_PAGE, readGridState } from './grid-state.ts';
import { filterLinks, grid, query, searchForm, summary } from './layout.ts';
import { notFound, page, redirectWith, type StoreContext } from './session.ts';
import { CATEGORIES } from './vocab.ts';

interface ProductRow {
  id: number;
  sku: string;
  name: string;
  category: string;
  price_cents: number;
  qty: number;
  status: string;
  color: string;
  size: string;
  created_at: string;
}

const SORTS = {
  sku: 'sku',
  name: 'name',
  category: 'category, name',
  price: 'price_cents',
  qty: 'qty',
  status: 'status, name',
};

export function productRoutes(app: Hono<WebAppEnv>): void {
  app.get('/admin/products', productGrid);
  app.get('/admin/products/new', newProductPage);
  app.post('/admin/products', createProduct);
  app.get('/admin/products/:id{[0-9]+}', productPage);
  app.post('/admin/products/:id{[0-9]+}', saveProduct);
}

function productGrid(c: StoreContext) {
  const state = readGridState(c, '/admin/products', {
    sorts: SORTS,
    sort: 'sku',
    dir: 'asc',
    filters: ['status', 'category', 'stock'],
  });
  const { status, category, stock } = state.filters;
  const where: string[] = [];
  const args: unknown[] = [];
  if (state.q) {
    where.push('(sku LIKE ? OR name LIKE ?)');
    args.push(`%${state.q}%`, `%${state.q}%`);
  }
  if (status) {
    where.push('status = ?');
    args.push(status);
  }
  if (category) {
    where.push('category = ?');
    args.push(category);
  }
  if (stock === 'in') where.push('qty > 0');
  if (stock === 'out') where.push('qty = 0');
  const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const db = c.var.db;
  const total = (
    db.prepare(`SELECT COUNT(*) AS n FROM products ${clause}`).get(...args) as {
      n: number;
    }
  ).n;
  const rows = db
    .prepare(`SELECT * FROM products ${clause} ORDER BY ${state.orderBy}, id LIMIT ? OFFSET ?`)
    .all(...args, PER_PAGE, (state.page - 1) * PER_PAGE) as ProductRow[];
  const link = (changes: Record<string, string | undefined>) =>
    `/admin/products${query({ ...state.params, ...changes })}`;
  const body = html`<p><a href="/admin/products/new">Add product</a></p>
${searchForm({ action: '/admin/products', label: 'Search products', value: state.q, keep: { status, category, stock } })}
${filterLinks('Status', [
  { text: 'All statuses', href: link({ status: undefined }), current: !status },
  ...PRODUCT_STATUSES.map((s) => ({ text: s, href: link({ status: s }), current: status === s })),
])}
${filterLinks('Category', [
  { text: 'All categories', href: link({ category: undefined }), current: !category },
  ...Object.keys(CATEGORIES).map((k) => ({
    text: k,
    href: link({ category: k }),
    current: category === k,
  })),
])}
${filterLinks('Stock', [
  { text: 'Any stock', href: link({ stock: undefined }), current: !stock },
  { text: 'In stock', href: link({ stock: 'in' }), current: stock === 'in' },
  { text: 'Out of stock', href: link({ stock: 'out' }), current: stock === 'out' },
])}
${grid<ProductRow>({
  id: 'grid',
  caption: 'Products',
  columns: [
    { header: 'SKU', sort: 'sku', cell: (p) => p.sku },
    {
      header: 'Name',
      sort: 'name',
      cell: (p) => html`<a href="/admin/products/${p.id}">${p.name}</a>`,
    },
    { header: 'Category', sort: 'category', cell: (p) => p.category },
    { header: 'Price', sort: 'price', cell: (p) => formatMoney(p.price_cents) },
    { header: 'Quantity', sort: 'qty', cell: (p) => p.qty },
    { header: 'Status', sort: 'status', cell: (p) => p.status },
  ],
  rows,
  total,
  perPage: PER_PAGE,
  state,
})}`;
  return page(c, 'Products', body);
}

function findProduct(c: StoreContext): ProductRow | undefined {
  return c.var.db.prepare('SELECT * FROM products WHERE id = ?').get(Number(c.req.param('id'))) as
    | ProductRow
    | undefined;
}

function productPage(c: StoreContext) {
  const product = findProduct(c);
  if (!product) return notFound(c, `Product ${c.req.param('id')}`, '/admin/products', 'products');
  const db = c.var.db;
  const rating = db
    .prepare(
      "SELECT COUNT(*) AS n, AVG(rating) AS avg FROM reviews WHERE product_id = ? AND status = 'Approved'",
    )
    .get(product.id) as { n: number; avg: number | null };
  const sold = db
    .prepare(
      `SELECT COALESCE(SUM(i.qty), 0) AS n FROM order_items i JOIN orders o ON o.id = i.order_id
       WHERE i.product_id = ? AND o.status != 'Canceled'`,
    )
    .get(product.id) as { n: number };
  const reviews = db
    .prepare(
      'SELECT id, title, nickname, rating, status FROM reviews WHERE product_id = ? ORDER BY created_at DESC, id',
    )
    .all(product.id) as Array<{
    id: number;
    title: string;
    nickname: string;
    rating: number;
    status: string;
  }>;
  const body = html`<p><a href="/admin/products">Back to products</a></p>
${summary('Product summary', [
  ['SKU', product.sku, 'summary-sku'],
  ['Category', product.category],
  ['Price', formatMoney(product.price_cents), 'summary-price'],
  ['Quantity', product.qty, 'summary-qty'],
  ['Status', product.status, 'summary-status'],
  ['Color', product.color, 'summary-color'],
  ['Size', product.size],
  ['Units sold', sold.n],
  [
    'Average rating',
    rating.avg === null ? 'No approved reviews' : `${rating.avg.toFixed(1)} of 5 (${rating.n})`,
  ],
])}
<h2>Edit product</h2>
${productForm(`/admin/products/${product.id}`, 'Save product', {
  name: product.name,
  price: plainMoney(product.price_cents),
  qty: String(product.qty),
  color: product.color,
  status: product.status,
})}
<h2>Reviews</h2>
${
  reviews.length === 0
    ? html`<p>No reviews yet.</p>`
    : html`<ul id="product-reviews">${reviews.map((r) => html`<li><a href="/admin/reviews/${r.id}">${r.title}</a> by ${r.nickname}, ${r.rating} of 5, ${r.status}</li>`)}</ul>`
}`;
  return page(c, product.name, body);
}

interface ProductFields {
  sku?: string;
  name?: string;
  price?: string;
  qty?: string;
  color?: string;
  status?: string;
}

function productForm(action: string, submit: string, values: ProductFields, withSku = false) {
  const field = (id: string, name: keyof ProductFields, label: string) =>
    html`<p><label for="${id}">${label}</label> <input type="text" id="${id}" name="${name}" value="${values[name] ?? ''}"></p>`;
  return html`<form class="edit" method="post" action="${action}" aria-label="${submit}">
${withSku ? field('product-sku', 'sku', 'SKU') : ''}
${field('product-name', 'name', 'Product name')}
${field('product-price', 'price', 'Price')}
${field('product-qty', 'qty', 'Quantity')}
${field('product-color', 'color', 'Color')}
<fieldset><legend>Status</legend>
${PRODUCT_STATUSES.map(
  (s) =>
    html`<label><input type="radio" name="status" value="${s}"${values.status === s || (!values.status && s === 'Enabled') ? html` checked` : ''}> ${s}</label> `,
)}
</fieldset>
<p><button type="submit">${submit}</button></p>
</form>`;
}

interface ParsedProduct {
  name: string;
  priceCents: number;
  qty: number;
  color: string;
  status: string;
}

/** The submitted fields, or the first problem in words. */
function parseProductForm(form: Record<string, unknown>): ParsedProduct | string {
  const text = (key: string) => (typeof form[key] === 'string' ? (form[key] as string).trim() : '');
  const name = text('name');
  if (!name) return 'Product name is required.';
  const priceCents = parseMoney(text('price'));
  if (priceCents === undefined) return `Price "${text('price')}" is not an amount such as 19.99.`;
  const qtyText = text('qty');
  if (!/^\d+$/.test(qtyText)) return `Quantity "${qtyText}" is not a whole number such as 12.`;
  const status = text('status');
  if (!(PRODUCT_STATUSES as readonly string[]).includes(status)) {
    return 'Choose a status: Enabled or Disabled.';
  }
  return { name, priceCents, qty: Number(qtyText), color: text('color'), status };
}

async function saveProduct(c: StoreContext) {
  const product = findProduct(c);
  if (!product) return notFound(c, `Product ${c.req.param('id')}`, '/admin/products', 'products');
  const parsed = parseProductForm(await c.req.parseBody());
  const back = `/admin/products/${product.id}`;
  if (typeof parsed === 'string') return redirectWith(c, back, { kind: 'error', text: parsed });
  const clash = c.var.db
    .prepare('SELECT id FROM products WHERE name = ? AND id != ?')
    .get(parsed.name, product.id);
  if (clash) {
    return redirectWith(c, back, {
      kind: 'error',
      text: `Another product is already named "${parsed.name}".`,
    });
  }
  c.var.db
    .prepare(
      'UPDATE products SET name = ?, price_cents = ?, qty = ?, color = ?, status = ? WHERE id = ?',
    )
    .run(parsed.name, parsed.priceCents, parsed.qty, parsed.color, parsed.status, product.id);
  return redirectWith(c, back, { kind: 'success', text: 'You saved the product.' });
}

function newProductPage(c: StoreContext) {
  const body = html`<p><a href="/admin/products">Back to products</a></p>
<p>Category: new products are filed under the category their SKU prefix names (KIT, GAR, OUT, OFF, APP, BAT).</p>
${productForm('/admin/products', 'Create product', {}, true)}`;
  return page(c, 'New product', body);
}

/** SKU prefixes and the categories they file a new product under. */
const SKU_CATEGORIES = new Map(
  Object.keys(CATEGORIES).map((k) => [k.slice(0, 3).toUpperCase(), k]),
);

async function createProduct(c: StoreContext) {
  const form = await c.req.parseBody();
  const sku = typeof form.sku === 'string' ? form.sku.trim().toUpperCase() : '';
  const category = SKU_CATEGORIES.get(sku.slice(0, 3));
  const parsed = parseProductForm(form);
  const problem =
    typeof parsed === 'string'
      ? parsed
      : !/^[A-Z]{3}-\d{4}$/.test(sku) || !category
        ? `SKU "${sku}" must look like KIT-1234, with a prefix of ${[...SKU_CATEGORIES.keys()].join(', ')}.`
        : c.var.db.prepare('SELECT 1 FROM products WHERE sku = ? OR name = ?').get(sku, parsed.name)
          ? `A product with SKU ${sku} or name "${parsed.name}" already exists.`
          : undefined;
  if (problem !== undefined || typeof parsed === 'string') {
    return redirectWith(c, '/admin/products/new', { kind: 'error', text: problem ?? '' });
  }
  const { lastInsertRowid } = c.var.db
    .prepare(
      `INSERT INTO products (sku, name, category, price_cents, qty, status, color, size, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, 'One Size', ?)`,
    )
    .run(
      sku,
      parsed.name,
      category,
      parsed.priceCents,
      parsed.qty,
      parsed.status,
      parsed.color,
      storedTime(nextTimestamp(c.var.db)).slice(0, 10),
    );
  return redirectWith(c, `/admin/products/${lastInsertRowid}`, {
    kind: 'success',
    text: 'You created the product.',
  });
}
