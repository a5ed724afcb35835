/**
 * The store admin's page shell and shared page parts: header with the main navigation, the
 * flash message, search boxes, filter links, sortable grids and pagination. Plain HTML with
 * landmarks, headings and labels, because agents read these pages as an accessibility tree.
 */

import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** The main navigation, in order: label and path. */
export const NAV_LINKS = [
  ['Dashboard', '/admin'],
  ['Products', '/admin/products'],
  ['Orders', '/admin/orders'],
  ['Customers', '/admin/customers'],
  ['Reviews', '/admin/reviews'],
  ['Reports', '/admin/reports'],
] as const;

const STYLE = `
body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#222;background:#f6f5f2}
header{background:#2d2a26;color:#fff;padding:6px 16px;display:flex;gap:18px;align-items:center}
header a{color:#f3d9a4;text-decoration:none;margin-right:12px}
header .brand{font-weight:700;margin:0}
header form{margin-left:auto}
main{padding:12px 16px;max-width:1000px}
h1{font-size:20px;margin:6px 0 10px}
h2{font-size:16px;margin:14px 0 6px}
table{border-collapse:collapse;background:#fff;margin:4px 0}
th,td{border:1px solid #ddd;padding:3px 8px;text-align:left}
thead th{background:#ece8e1}
.flash{padding:6px 10px;margin:6px 0;background:#e3f1df;border:1px solid #9c9}
.flash.error{background:#f7e1df;border-color:#c99}
nav.filters a,nav.pages a{margin-right:8px}
nav.filters [aria-current]{font-weight:700}
label{display:inline-block;min-width:90px}
form.edit p{margin:5px 0}
button{padding:3px 10px}
`;

/** A whole page: title, header with the admin's name, main content with an h1. */
export function layout(options: {
  title: string;
  body: Html;
  flash?: Flash | undefined;
  /** Signed-in admin's name; no navigation when absent (the login page). */
  user?: string | undefined;
}): Html {
  const { title, body, flash, user } = options;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title} — Store Admin</title>
<style>${raw(STYLE)}</style></head>
<body>
<header>
<p class="brand">Store Admin</p>
${
  user
    ? html`<nav aria-label="Main">${NAV_LINKS.map(([label, href]) => html`<a href="${href}">${label}</a>`)}</nav>
<form method="post" action="/admin/logout"><span>Signed in as ${user}</span> <button type="submit">Sign out</button></form>`
    : ''
}
</header>
<main>
<h1>${title}</h1>
${flash ? html`<div role="status" id="flash" class="flash${flash.kind === 'error' ? ' error' : ''}">${flash.text}</div>` : ''}
${body}
</main>
</body></html>`;
}

/** A one-shot message shown after a redirect. */
export interface Flash {
  kind: 'success' | 'error';
  text: string;
}

/** A GET search box of a grid, keeping its other query parameters as hidden fields. */
export function searchForm(options: {
  action: string;
  label: string;
  value: string;
  keep?: Record<string, string | undefined>;
}): Html {
  const keep = Object.entries(options.keep ?? {}).filter(([, v]) => v);
  return html`<form role="search" method="get" action="${options.action}">
<label for="q">${options.label}</label>
<input type="search" id="q" name="q" value="${options.value}">
${keep.map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}
<button type="submit">Search</button>
</form>`;
}

/** A row of filter links; the current one is marked `aria-current`. */
export function filterLinks(
  label: string,
  links: ReadonlyArray<{ text: string; href: string; current: boolean }>,
): Html {
  return html`<nav class="filters" aria-label="${label}"><span>${label}:</span>
${links.map((l) => html`<a href="${l.href}"${l.current ? raw(' aria-current="true"') : ''}>${l.text}</a>`)}
</nav>`;
}

/** Query string from parameters, dropping empty ones. */
export function query(params: Record<string, string | number | undefined>): string {
  const entries = Object.entries(params)
    .filter(([, v]) => v !== undefined && v !== '')
    .map(([k, v]) => [k, String(v)] as [string, string]);
  return entries.length === 0 ? '' : `?${new URLSearchParams(entries).toString()}`;
}

/** One column of a sortable grid. */
export interface GridColumn<Row> {
  header: string;
  /** The `sort` value of this column; unsortable when absent. */
  sort?: string;
  cell: (row: Row) => Html | string | number;
}

/** Grid state read from the query string. */
export interface GridState {
  base: string;
  params: Record<string, string | undefined>;
  sort: string;
  dir: 'asc' | 'desc';
  page: number;
}

/**
 * A data grid: record count, a table whose sortable headers are links (a second click on the
 * current column reverses it), and pagination.
 */
export function grid<Row>(options: {
  id: string;
  caption: string;
  columns: ReadonlyArray<GridColumn<Row>>;
  rows: readonly Row[];
  total: number;
  perPage: number;
  state: GridState;
}): Html {
  const { id, caption, columns, rows, total, perPage, state } = options;
  const pages = Math.max(1, Math.ceil(total / perPage));
  const header = (column: GridColumn<Row>) => {
    if (!column.sort) return html`<th scope="col">${column.header}</th>`;
    const current = state.sort === column.sort;
    const dir = current && state.dir === 'asc' ? 'desc' : 'asc';
    const href = state.base + query({ ...state.params, sort: column.sort, dir });
    const marker = current ? (state.dir === 'asc' ? ' ▲' : ' ▼') : '';
    return html`<th scope="col"${current ? raw(` aria-sort="${state.dir === 'asc' ? 'ascending' : 'descending'}"`) : ''}><a href="${href}">${column.header}</a>${marker}</th>`;
  };
  const pageHref = (page: number) =>
    state.base + query({ ...state.params, sort: state.sort, dir: state.dir, page });
  return html`<p id="record-count">${total} record${total === 1 ? '' : 's'} found</p>
${
  rows.length === 0
    ? html`<p>No records match.</p>`
    : html`<table id="${id}"><caption>${caption}</caption>
<thead><tr>${columns.map(header)}</tr></thead>
<tbody>${rows.map((row) => html`<tr>${columns.map((c) => html`<td>${c.cell(row)}</td>`)}</tr>`)}</tbody>
</table>`
}
${
  pages > 1
    ? html`<nav class="pages" aria-label="Pagination">
${state.page > 1 ? html`<a href="${pageHref(state.page - 1)}">Previous page</a>` : ''}
<span>Page ${state.page} of ${pages}</span>
${state.page < pages ? html`<a href="${pageHref(state.page + 1)}">Next page</a>` : ''}
</nav>`
    : ''
}`;
}

/** A two-column summary table (`<th scope=row>` label, value); values get ids for checks. */
export function summary(
  caption: string,
  rows: ReadonlyArray<readonly [label: string, value: Html | string | number, id?: string]>,
): Html {
  return html`<table class="summary"><caption>${caption}</caption><tbody>
${rows.map(([label, value, id]) => html`<tr><th scope="row">${label}</th><td${id ? raw(` id="${id}"`) : ''}>${value}</td></tr>`)}
</tbody></table>`;
}
