/**
 * Who is signed in, and the one-shot flash message: both in cookies, the session checked against
 * the episode's own `admin_users` table.
 */

import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { html } from 'hono/html';
import type { WebAppEnv } from '../web-app.ts';
import { type Flash, type Html, layout } from './layout.ts';

/** The session cookie (WebArena's auto-login sets it; so does the login form). */
export const SESSION_COOKIE = 'store_admin_session';
const FLASH_COOKIE = 'store_flash';

export type StoreContext = Context<WebAppEnv>;

/** The signed-in admin's name, or undefined. */
export function signedInAdmin(c: StoreContext): string | undefined {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) return undefined;
  const row = c.var.db.prepare('SELECT name FROM admin_users WHERE session_token = ?').get(token) as
    | { name: string }
    | undefined;
  return row?.name;
}

/** Sends visitors without a session to the login page, which brings them back afterwards. */
export const requireAdmin: MiddlewareHandler<WebAppEnv> = async (c, next) => {
  if (c.req.path === '/admin/login' || signedInAdmin(c)) return next();
  const back = c.req.method === 'GET' ? c.req.path + new URL(c.req.url).search : '/admin';
  return c.redirect(`/admin/login?next=${encodeURIComponent(back)}`);
};

/** Shows `text` on the next page this browser loads. */
export function setFlash(c: StoreContext, flash: Flash): void {
  setCookie(c, FLASH_COOKIE, encodeURIComponent(JSON.stringify(flash)), { path: '/' });
}

function takeFlash(c: StoreContext): Flash | undefined {
  const value = getCookie(c, FLASH_COOKIE);
  if (!value) return undefined;
  deleteCookie(c, FLASH_COOKIE, { path: '/' });
  try {
    return JSON.parse(decodeURIComponent(value)) as Flash;
  } catch {
    return undefined;
  }
}

/** Renders a signed-in page with the pending flash message. */
export function page(c: StoreContext, title: string, body: Html, status: 200 | 404 = 200) {
  return c.html(layout({ title, body, flash: takeFlash(c), user: signedInAdmin(c) }), status);
}

/** Redirects after a form post, with a flash message for the page it lands on. */
export function redirectWith(c: StoreContext, to: string, flash: Flash) {
  setFlash(c, flash);
  return c.redirect(to, 303);
}

/** A 404 page naming what was not found, with a link back to its grid. */
export function notFound(c: StoreContext, what: string, listPath: string, listName: string) {
  return page(
    c,
    'Not found',
    html`<p>${what} does not exist.</p><p><a href="${listPath}">Back to ${listName}</a></p>`,
    404,
  );
}
