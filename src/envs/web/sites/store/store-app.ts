/**
 * `store`: our stand-in for WebArena's shopping admin (a Magento back office). A signed-in admin
 * manages products (price, stock, status, attributes), orders (status changes, cancellation
 * behind a confirmation, comments), customers (contact details, group), reviews (moderation),
 * and reads best-seller and monthly sales reports. Server-rendered HTML, state in SQLite.
 */

import type Database from 'better-sqlite3';
import type { Hono } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { html } from 'hono/html';
import type { WebAppDefinition, WebAppEnv } from '../web-app.ts';
import { customerRoutes } from './customers.ts';
import { dashboardRoutes } from './dashboard.ts';
import { ADMIN_ACCOUNT, buildStore } from './generate.ts';
import { layout } from './layout.ts';
import { orderRoutes } from './orders.ts';
import { productRoutes } from './products.ts';
import { reportRoutes } from './reports.ts';
import { reviewRoutes } from './reviews.ts';
import { requireAdmin, SESSION_COOKIE, signedInAdmin } from './session.ts';

/** The session token of the default admin in an episode's database. */
function sessionToken(db: Database.Database): string {
  return (
    db.prepare('SELECT session_token FROM admin_users ORDER BY id LIMIT 1').get() as {
      session_token: string;
    }
  ).session_token;
}

/** Only local paths, so the login form cannot send anyone elsewhere. */
function safeNext(next: string | undefined): string {
  return next?.startsWith('/admin') ? next : '/admin';
}

function loginRoutes(app: Hono<WebAppEnv>): void {
  const loginPage = (next: string, error?: string) =>
    layout({
      title: 'Sign in',
      flash: error ? { kind: 'error', text: error } : undefined,
      body: html`<form class="edit" method="post" action="/admin/login" aria-label="Sign in">
<input type="hidden" name="next" value="${next}">
<p><label for="username">Username</label> <input type="text" id="username" name="username" autocomplete="username"></p>
<p><label for="password">Password</label> <input type="password" id="password" name="password" autocomplete="current-password"></p>
<p><button type="submit">Sign in</button></p>
</form>
<p>Demo account: ${ADMIN_ACCOUNT.username} / ${ADMIN_ACCOUNT.password}</p>`,
    });
  app.get('/admin/login', (c) => {
    const next = safeNext(c.req.query('next'));
    return signedInAdmin(c) ? c.redirect(next) : c.html(loginPage(next));
  });
  app.post('/admin/login', async (c) => {
    const form = await c.req.parseBody();
    const next = safeNext(typeof form.next === 'string' ? form.next : undefined);
    const user = c.var.db
      .prepare('SELECT session_token FROM admin_users WHERE username = ? AND password = ?')
      .get(String(form.username ?? ''), String(form.password ?? '')) as
      | { session_token: string }
      | undefined;
    if (!user) return c.html(loginPage(next, 'Wrong username or password.'), 401);
    setCookie(c, SESSION_COOKIE, user.session_token, { path: '/', httpOnly: true });
    return c.redirect(next, 303);
  });
  app.post('/admin/logout', (c) => {
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.redirect('/admin/login', 303);
  });
}

export const storeApp: WebAppDefinition = {
  name: 'store',
  site: 'shopping_admin',
  description: 'store admin (after Magento): products, orders, customers, reviews, reports',
  build: buildStore,
  routes(app) {
    app.get('/', (c) => c.redirect('/admin'));
    app.use('/admin/*', requireAdmin);
    app.use('/admin', requireAdmin);
    loginRoutes(app);
    dashboardRoutes(app);
    productRoutes(app);
    orderRoutes(app);
    customerRoutes(app);
    reviewRoutes(app);
    reportRoutes(app);
  },
  loginCookies: (db) => ({ [SESSION_COOKIE]: sessionToken(db) }),
};
