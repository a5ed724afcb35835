import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { html } from './html.ts';

/** The cookie a browser keeps the viewer's token in after opening the `?token=` link once. */
export const TOKEN_COOKIE = 'dreamgym_view_token';

function same(a: string, b: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * Requires the viewer's token, as `dreamgym serve --token` does, in a form a browser can give:
 * `Authorization: Bearer <token>` (scripts, curl), or the link `/?token=<token>` printed at start,
 * which stores it in an HTTP-only, same-site cookie and redirects to the same page without it (so
 * the token stays out of the address bar and the history). Anything else is a 401 naming the fix.
 */
export function requireToken(token: string): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header('authorization');
    if (header?.startsWith('Bearer ') && same(header.slice(7), token)) return next();
    const cookie = getCookie(c, TOKEN_COOKIE);
    if (cookie !== undefined && same(cookie, token)) return next();
    const offered = c.req.query('token');
    if (offered !== undefined && same(offered, token)) {
      setCookie(c, TOKEN_COOKIE, token, { httpOnly: true, sameSite: 'Strict', path: '/' });
      const url = new URL(c.req.url);
      url.searchParams.delete('token');
      return c.redirect(`${url.pathname}${url.search}`, 303);
    }
    return c.html(
      html`<!doctype html><title>token needed</title><p>This viewer was started with <code>--token</code>: open the link it printed (<code>http://HOST:PORT/?token=…</code>), or send <code>Authorization: Bearer &lt;token&gt;</code>.</p>`.toString(),
      401,
    );
  };
}
