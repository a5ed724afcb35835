import { ConfigError } from '../../core/errors.ts';
import { clientSettings } from '../client-settings.ts';
import type { TransportKind } from './transport.ts';

/**
 * Names of OpenEnv servers as envs:
 *
 * - `openenv@http://HOST:PORT` — family `openenv`;
 * - `openenv:NAME@http://HOST:PORT` — family `openenv:NAME`, to keep the episodes of several
 *   servers apart in one replay buffer (`openenv:textarena@…`, `openenv:coding@…`);
 * - `openenv+http@URL`, `openenv+http:NAME@URL` — the same over HTTP instead of WebSocket (see
 *   {@link TransportKind}).
 *
 * The URL is the server's root, `http(s)://` or `ws(s)://` (OpenEnv's clients take either);
 * dreamgym's own `serve` has its OpenEnv routes under `/openenv`. `#timeout=SECONDS` after it
 * sets the time to wait for one answer (see `clientSettings`).
 */
export interface OpenEnvRef {
  /** The env family its envs report as `Env.name` and its tasks carry as `Task.env`. */
  family: string;
  /** The server's root as `http(s)://…`, without a trailing slash. */
  url: string;
  transport: TransportKind;
  /** Time to wait for one answer, when the ref sets it (`#timeout=SECONDS`). */
  timeoutMs?: number;
}

/** Family of `openenv@URL`. */
export const OPENENV_FAMILY = 'openenv';

const USAGE =
  'write openenv@http://HOST:PORT or openenv:NAME@http://HOST:PORT (openenv+http@… for the HTTP transport)';

/** True for names of the form `openenv@…`, `openenv:…`, `openenv+http@…`, `openenv+http:…`. */
export function isOpenEnvRef(name: string): boolean {
  return /^openenv(\+http)?[:@]/.test(name);
}

/** Parses an OpenEnv env name; a wrong one says what to write instead. */
export function parseOpenEnvRef(ref: string): OpenEnvRef {
  const match = /^openenv(\+http)?(?::([^@]*))?@(.*)$/.exec(ref);
  if (!match) throw new ConfigError(`"${ref}" names no OpenEnv server; ${USAGE}.`);
  const [, http, name, written = ''] = match;
  const { url, timeoutMs } = clientSettings(written, ref);
  if (name !== undefined && !/^[A-Za-z0-9][A-Za-z0-9_.-]*$/.test(name)) {
    throw new ConfigError(
      `"${name}" in "${ref}" is not an env name: use letters, digits, "_", "." and "-"; ${USAGE}.`,
    );
  }
  return {
    family: name === undefined ? OPENENV_FAMILY : `${OPENENV_FAMILY}:${name}`,
    url: serverRoot(url, ref),
    transport: http ? 'http' : 'websocket',
    ...(timeoutMs !== undefined && { timeoutMs }),
  };
}

/**
 * A server's root URL as `http(s)://…` without a trailing slash (`ws(s)://` becomes
 * `http(s)://`), or a {@link ConfigError} for anything else.
 */
export function serverRoot(url: string, context = url): string {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (!parsed || !['http:', 'https:', 'ws:', 'wss:'].includes(parsed.protocol)) {
    throw new ConfigError(`"${url}" in "${context}" is not an http(s) or ws(s) URL; ${USAGE}.`);
  }
  return url.replace(/^ws/i, 'http').replace(/\/+$/, '');
}
