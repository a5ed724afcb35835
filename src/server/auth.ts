import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { ConfigError } from '../core/errors.ts';

/**
 * What a server token may hold: printable ASCII, spaces only inside. HTTP clients send header
 * values as ASCII (httpx refuses anything else, others mangle it), and trim the ends.
 */
const TOKEN = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * `token` if a client can send it back in `Authorization: Bearer <token>`, else a
 * {@link ConfigError} naming what is wrong with it: an empty token (which would otherwise turn
 * authentication off unnoticed), or characters that cannot travel in an HTTP header. `from` names
 * where it came from, e.g. `--token`.
 */
export function checkToken(token: string, from = 'the token'): string {
  if (token === '') {
    throw new ConfigError(
      `${from} is empty, which would leave the server open to anyone; give a token (e.g. from \`openssl rand -hex 32\`), or none to serve without one.`,
    );
  }
  if (!TOKEN.test(token)) {
    throw new ConfigError(
      `${from} has characters a client cannot send in an HTTP header (non-ASCII, control characters, or spaces at either end); use printable ASCII, e.g. a token from \`openssl rand -hex 32\`.`,
    );
  }
  return token;
}

/** The digest compared in constant time, so neither a token's bytes nor its length leak. */
const digest = (text: string) => createHash('sha256').update(text, 'latin1').digest();

/** Answers with a `{ detail }` body, as every error of the env server does. */
type Refuse = (status: 400 | 401, detail: string) => Response;

/**
 * Middleware that lets a request through only with `Authorization: Bearer <token>` (the scheme in
 * any case, one or more spaces after it), compared as sent: any token {@link checkToken} accepts
 * works, whatever punctuation it holds. Without the header: 401; another scheme: 400; another
 * token: 401.
 */
export function bearerToken(token: string): MiddlewareHandler {
  const expected = digest(checkToken(token));
  return async (c, next) => {
    const refuse: Refuse = (status, detail) => {
      c.header(
        'WWW-Authenticate',
        `Bearer error="${status === 400 ? 'invalid_request' : 'invalid_token'}"`,
      );
      return c.json({ detail }, status);
    };
    const header = c.req.header('authorization');
    if (header === undefined) {
      return refuse(
        401,
        'this server needs a token: send the header "Authorization: Bearer <token>" with the token it was started with (--token).',
      );
    }
    const match = /^Bearer +(.+)$/i.exec(header);
    if (!match) {
      return refuse(400, 'malformed Authorization header: send "Authorization: Bearer <token>".');
    }
    if (!timingSafeEqual(digest(match[1] as string), expected)) {
      return refuse(401, 'wrong token: send the token the server was started with (--token).');
    }
    await next();
  };
}
