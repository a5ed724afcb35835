/**
 * Review moderation: the review grid (search, status filter, sorting, pages) and the review page
 * (summary, approve/reject buttons, delete behind a confirmation page).
 */

import type { Hono } from 'hono';
import { html } from 'hono/html';
import type { WebAppEnv } from '../web-app.ts';
import { formatDate } from './format.ts';
import { REVIEW_STATUSES } from './generate.ts';
import { PER_PAGE, readGridState } from './grid-state.ts';
import { filterLinks, grid, query, searchForm, summary } from './layout.ts';
import { notFound, page, redirectWith, type StoreContext } from './session.ts';

interface ReviewRow {
  id: number;
  product_id: number;
  product: string;
  nickname: string;
  rating: number;
  title: string;
  body: string;
  status: string;
  created_at: string;
}

const REVIEW_VIEW_SQL = `
SELECT r.*, p.name AS product FROM reviews r JOIN products p ON p.id = r.product_id`;

const SORTS = {
  date: 'created_at',
  title: 'title',
  product: 'product, nickname',
  nickname: 'nickname',
  rating: 'rating',
  status: 'status, created_at',
};

/** Moderation buttons: label and the status they set. */
export const MODERATION = [
  { label: 'Approve review', to: 'Approved' },
  { label: 'Reject review', to: 'Rejected' },
] as const;

export function reviewRoutes(app: Hono<WebAppEnv>): void {
  app.get('/admin/reviews', reviewGrid);
  app.get('/admin/reviews/:id{[0-9]+}', reviewPage);
  app.post('/admin/reviews/:id{[0-9]+}/status', moderate);
  app.get('/admin/reviews/:id{[0-9]+}/delete', confirmDelete);
  app.post('/admin/reviews/:id{[0-9]+}/delete', deleteReview);
}

function reviewGrid(c: StoreContext) {
  const state = readGridState(c, '/admin/reviews', {
    sorts: SORTS,
    sort: 'date',
    dir: 'desc',
    filters: ['status'],
  });
  const { status } = state.filters;
  const where: string[] = [];
  const args: unknown[] = [];
  if (state.q) {
    where.push('(title LIKE ? OR nickname LIKE ? OR product LIKE ?)');
    args.push(`%${state.q}%`, `%${state.q}%`, `%${state.q}%`);
  }
  if (status) {
    where.push('status = ?');
    args.push(status);
  }
  const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
  const db = c.var.db;
  const total = (
    db.prepare(`SELECT COUNT(*) AS n FROM (${REVIEW_VIEW_SQL}) ${clause}`).get(...args) as {
      n: number;
    }
  ).n;
  const rows = db
    .prepare(
      `SELECT * FROM (${REVIEW_VIEW_SQL}) ${clause} ORDER BY ${state.orderBy}, id LIMIT ? OFFSET ?`,
    )
    .all(...args, PER_PAGE, (state.page - 1) * PER_PAGE) as ReviewRow[];
  const link = (s: string | undefined) => `/admin/reviews${query({ ...state.params, status: s })}`;
  const body = html`${searchForm({ action: '/admin/reviews', label: 'Search reviews', value: state.q, keep: { status } })}
${filterLinks('Status', [
  { text: 'All reviews', href: link(undefined), current: !status },
  ...REVIEW_STATUSES.map((s) => ({ text: s, href: link(s), current: status === s })),
])}
${grid<ReviewRow>({
  id: 'grid',
  caption: 'Reviews',
  columns: [
    {
      header: 'Title',
      sort: 'title',
      cell: (r) => html`<a href="/admin/reviews/${r.id}">${r.title}</a>`,
    },
    { header: 'Product', sort: 'product', cell: (r) => r.product },
    { header: 'Nickname', sort: 'nickname', cell: (r) => r.nickname },
    { header: 'Rating', sort: 'rating', cell: (r) => r.rating },
    { header: 'Status', sort: 'status', cell: (r) => r.status },
    { header: 'Date', sort: 'date', cell: (r) => formatDate(r.created_at) },
  ],
  rows,
  total,
  perPage: PER_PAGE,
  state,
})}`;
  return page(c, 'Reviews', body);
}

function findReview(c: StoreContext): ReviewRow | undefined {
  return c.var.db
    .prepare(`SELECT * FROM (${REVIEW_VIEW_SQL}) WHERE id = ?`)
    .get(Number(c.req.param('id'))) as ReviewRow | undefined;
}

function reviewPage(c: StoreContext) {
  const review = findReview(c);
  if (!review) return notFound(c, `Review ${c.req.param('id')}`, '/admin/reviews', 'reviews');
  const buttons = MODERATION.filter((m) => m.to !== review.status);
  const body = html`<p><a href="/admin/reviews">Back to reviews</a></p>
${summary('Review summary', [
  ['Product', html`<a href="/admin/products/${review.product_id}">${review.product}</a>`],
  ['Nickname', review.nickname],
  ['Rating', `${review.rating} of 5`, 'summary-rating'],
  ['Title', review.title],
  ['Review', review.body],
  ['Status', review.status, 'summary-status'],
  ['Date', formatDate(review.created_at)],
])}
<h2>Moderation</h2>
${buttons.map(
  (
    m,
  ) => html`<form method="post" action="/admin/reviews/${review.id}/status" style="display:inline">
<input type="hidden" name="to" value="${m.to}"><button type="submit">${m.label}</button></form> `,
)}
<a href="/admin/reviews/${review.id}/delete">Delete review</a>`;
  return page(c, `Review: ${review.title}`, body);
}

async function moderate(c: StoreContext) {
  const review = findReview(c);
  if (!review) return notFound(c, `Review ${c.req.param('id')}`, '/admin/reviews', 'reviews');
  const form = await c.req.parseBody();
  const action = MODERATION.find((m) => m.to === form.to);
  const back = `/admin/reviews/${review.id}`;
  if (!action) {
    return redirectWith(c, back, {
      kind: 'error',
      text: 'Choose Approve review or Reject review.',
    });
  }
  c.var.db.prepare('UPDATE reviews SET status = ? WHERE id = ?').run(action.to, review.id);
  return redirectWith(c, back, {
    kind: 'success',
    text: `The review is now ${action.to.toLowerCase()}.`,
  });
}

function confirmDelete(c: StoreContext) {
  const review = findReview(c);
  if (!review) return notFound(c, `Review ${c.req.param('id')}`, '/admin/reviews', 'reviews');
  const body = html`<p>Delete the review "${review.title}" by ${review.nickname} on ${review.product}? This cannot be undone.</p>
<form method="post" action="/admin/reviews/${review.id}/delete"><button type="submit">Yes, delete the review</button></form>
<p><a href="/admin/reviews/${review.id}">No, keep the review</a></p>`;
  return page(c, 'Delete review?', body);
}

function deleteReview(c: StoreContext) {
  const review = findReview(c);
  if (!review) return notFound(c, `Review ${c.req.param('id')}`, '/admin/reviews', 'reviews');
  c.var.db.prepare('DELETE FROM reviews WHERE id = ?').run(review.id);
  return redirectWith(c, `/admin/products/${review.product_id}`, {
    kind: 'success',
    text: `You deleted the review "${review.title}" by ${review.nickname}.`,
  });
}
