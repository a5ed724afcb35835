import { escapeHtml } from '../web-app.ts';
import { formatDate } from './schema.ts';
import type { ForumUser } from './session.ts';

/**
 * The forum's HTML building blocks. Agents read these pages as an accessibility tree, so every
 * block is labelled: landmarks, headings, named lists and buttons, labels on inputs; facts are
 * `<dl>` pairs so a label and its value sit on consecutive lines of the tree text; the elements
 * that program_html checks read carry stable ids and data attributes.
 */

/** Pages list 15 items at a time. */
export const PAGE_SIZE = 15;

export const SORTS = ['hot', 'new', 'top'] as const;
export type Sort = (typeof SORTS)[number];

export function parseSort(value: string | undefined, fallback: Sort = 'hot'): Sort {
  return (SORTS as readonly string[]).includes(value ?? '') ? (value as Sort) : fallback;
}

export function parsePage(value: string | undefined): number {
  const page = Number.parseInt(value ?? '1', 10);
  return Number.isFinite(page) && page >= 1 ? page : 1;
}

export interface PageOptions {
  title: string;
  user: ForumUser | undefined;
  flash?: string | undefined;
  /** The search box's current query. */
  query?: string;
}

const STYLE = `
body{font-family:system-ui,sans-serif;margin:0;color:#1c1c1c;background:#f4f4f2;font-size:15px}
header{background:#2d4a3e;color:#fff;padding:8px 16px;display:flex;gap:16px;align-items:center;flex-wrap:wrap}
header a{color:#fff}header .brand{font-weight:700;font-size:18px;text-decoration:none}
nav ul{list-style:none;display:flex;gap:10px;padding:0}header nav ul{list-style:none;display:flex;gap:12px;margin:0;padding:0;align-items:center}
header form{display:inline;margin:0}
main{max-width:860px;margin:16px auto;background:#fff;padding:12px 20px;border-radius:6px}
.flash{background:#e3f2e1;border:1px solid #9c9;padding:6px 10px;border-radius:4px}
.error{background:#fbe3e3;border:1px solid #c99;padding:6px 10px;border-radius:4px}
ol.posts{list-style:none;padding:0}ol.posts li{border-bottom:1px solid #eee;padding:6px 0}
ol.posts h2{font-size:16px;margin:0}.meta{color:#666;font-size:13px;margin:2px 0}
ul.facts{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px 18px;color:#444;font-size:14px}
ol.comments,ol.replies{list-style:none;padding-left:18px;border-left:2px solid #e6e6e6}
.comment{margin:6px 0}.comment-body{margin:2px 0}
button{cursor:pointer}button[aria-pressed=true]{background:#2d4a3e;color:#fff}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #eee;padding:4px;text-align:left}
textarea,input[type=text],input[type=password]{width:100%;box-sizing:border-box}
label{display:block;margin-top:8px}
`;

/** A whole page: banner with navigation and search, then the flash message and `body`. */
export function page(options: PageOptions, body: string): string {
  const { user } = options;
  const account = user
    ? `<li>Signed in as <a href="/user/${escapeHtml(user.name)}">${escapeHtml(user.name)}</a></li>
       <li><a href="/settings">Settings</a></li>
       <li><form method="post" action="/logout"><button type="submit">Log out</button></form></li>`
    : '<li><a href="/login">Log in</a></li>';
  const flash = options.flash
    ? `<p role="status" class="flash">${escapeHtml(options.flash)}</p>`
    : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(options.title)} — Forum</title>
<style>${STYLE}</style></head>
<body>
<header>
<a class="brand" href="/">Forum</a>
<nav aria-label="Main"><ul>
<li><a href="/">Home</a></li><li><a href="/forums">Forums</a></li>
<li><a href="/submit">Submit</a></li><li><a href="/subscriptions">Subscriptions</a></li>
${account}
</ul></nav>
<form role="search" method="get" action="/search">
<input type="search" name="q" aria-label="Search" placeholder="Search posts and users" value="${escapeHtml(options.query ?? '')}">
<button type="submit">Search</button>
</form>
</header>
<main>
${flash}
${body}
</main>
</body></html>`;
}

/**
 * Label/value pairs, one `Label: value` list item each: a text value stays one text node, so the
 * tree shows `StaticText 'Score: 22'` (a bare `22` could be dropped as a repeat of nearby text by
 * WebArena's tree cleaning). Values are HTML; an id goes on the item.
 */
export function facts(rows: ReadonlyArray<readonly [string, string, string?]>): string {
  const items = rows
    .map(
      ([label, value, id]) => `<li${id ? ` id="${id}"` : ''}>${escapeHtml(label)}: ${value}</li>`,
    )
    .join('');
  return `<ul class="facts" aria-label="Details">${items}</ul>`;
}

/** A post as listed on the front page, a forum, a profile or search results. */
export interface PostSummary {
  id: number;
  title: string;
  forum: string;
  author: string;
  score: number;
  created: number;
  comments: number;
}

export function postUrl(post: { forum: string; id: number }): string {
  return `/f/${encodeURIComponent(post.forum)}/${post.id}`;
}

export function forumLink(forum: string): string {
  return `<a href="/f/${encodeURIComponent(forum)}">f/${escapeHtml(forum)}</a>`;
}

export function userLink(name: string): string {
  return `<a href="/user/${encodeURIComponent(name)}">${escapeHtml(name)}</a>`;
}

/**
 * A named, ordered list of posts (`list 'Posts'` in the tree), five tree lines a post: its
 * heading and link, the score, the author link, the date and comment count. `showForum` adds the
 * forum link, for lists that mix forums.
 */
export function postList(posts: readonly PostSummary[], showForum = true): string {
  if (posts.length === 0) return '<p>No posts here yet.</p>';
  const items = posts
    .map((post) => {
      const forum = showForum ? ` in ${forumLink(post.forum)}` : '';
      return `<li class="post" data-post-id="${post.id}"><article>
<h2 class="post-title"><a href="${postUrl(post)}">${escapeHtml(post.title)}</a></h2>
<p class="meta">${points(post.score)} · by ${userLink(post.author)}${forum} · ${formatDate(post.created)} · ${commentCount(post.comments)}</p>
</article></li>`;
    })
    .join('\n');
  return `<ol class="posts" id="posts" aria-label="Posts">${items}</ol>`;
}

export function points(score: number): string {
  return `${score} ${Math.abs(score) === 1 ? 'point' : 'points'}`;
}

function commentCount(count: number): string {
  return `${count} ${count === 1 ? 'comment' : 'comments'}`;
}

/** Links to the sort orders of a list, the current one marked. */
export function sortNav(base: string, current: Sort, sorts: readonly Sort[] = SORTS): string {
  const labels: Record<Sort, string> = { hot: 'Hot', new: 'New', top: 'Top' };
  const links = sorts
    .map((sort) => {
      const href = withQuery(base, { sort });
      const mark = sort === current ? ' aria-current="page"' : '';
      return `<li><a href="${href}"${mark}>${labels[sort]}</a></li>`;
    })
    .join('');
  return `<nav aria-label="Sort"><ul class="inline">${links}</ul></nav>`;
}

/** Previous/next links and "Page i of n"; nothing when everything fits on one page. */
export function pagination(
  base: string,
  pageNumber: number,
  total: number,
  params: Record<string, string> = {},
): string {
  const pages = Math.max(1, Math.ceil(total / PAGE_SIZE));
  if (pages <= 1) return '';
  const previous =
    pageNumber > 1
      ? `<a href="${withQuery(base, { ...params, page: String(pageNumber - 1) })}">Previous page</a>`
      : '';
  const next =
    pageNumber < pages
      ? `<a href="${withQuery(base, { ...params, page: String(pageNumber + 1) })}">Next page</a>`
      : '';
  return `<nav aria-label="Pagination">${previous} <span>Page ${pageNumber} of ${pages}</span> ${next}</nav>`;
}

export function withQuery(base: string, params: Record<string, string>): string {
  const query = new URLSearchParams(Object.entries(params).filter(([, v]) => v !== '')).toString();
  return query ? `${base}?${escapeHtml(query)}` : base;
}

/** A page saying what went wrong and where to go instead. */
export function problemPage(options: PageOptions, heading: string, message: string): string {
  return page(
    options,
    `<h1>${escapeHtml(heading)}</h1><p role="alert" class="error">${escapeHtml(message)}</p>
<p><a href="/">Back to the front page</a></p>`,
  );
}

/** `<p role="alert">` with a form's validation problem, or nothing. */
export function formError(message: string | undefined): string {
  return message ? `<p role="alert" class="error">${escapeHtml(message)}</p>` : '';
}
