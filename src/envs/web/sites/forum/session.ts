import type Database from 'better-sqlite3';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { WebAppEnv } from '../web-app.ts';

/** The cookie that names the logged-in user (its value is the user's session token). */
export const SESSION_COOKIE = 'forum_session';
/** A one-shot message shown on the next page (set before a redirect, cleared when shown). */
const FLASH_COOKIE = 'forum_flash';

export interface ForumUser {
  id: number;
  name: string;
}

/** The logged-in user of this request, if its session cookie names one. */
export function currentUser(c: Context<WebAppEnv>): ForumUser | undefined {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token) return undefined;
  return c.var.db.prepare('SELECT id, name FROM users WHERE session_token = ?').get(token) as
    | ForumUser
    | undefined;
}

/** The session cookie of the site's default user (WebArena's auto-login). */
export function defaultLoginCookies(db: Database.Database): Record<string, string> {
  const row = db.prepare('SELECT session_token FROM users WHERE is_default = 1').get() as
    | { session_token: string }
    | undefined;
  return row ? { [SESSION_COOKIE]: row.session_token } : {};
}

export function logIn(c: Context<WebAppEnv>, token: string): void {
  setCookie(c, SESSION_COOKIE, token, { path: '/', httpOnly: true, sameSite: 'Lax' });
}

export function logOut(c: Context<WebAppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { path: '/' });
}

/** Redirects to `location` with a message for the next page. */
export function redirectWithFlash(c: Context<WebAppEnv>, location: string, message: string) {
  setCookie(c, FLASH_COOKIE, encodeURIComponent(message), { path: '/', sameSite: 'Lax' });
  return c.redirect(location, 303);
}

/** The pending flash message, cleared so it shows once. */
export function takeFlash(c: Context<WebAppEnv>): string | undefined {
  const raw = getCookie(c, FLASH_COOKIE);
  if (raw === undefined) return undefined;
  deleteCookie(c, FLASH_COOKIE, { path: '/' });
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}
