import { DreamGymError } from '../../core/errors.ts';
import { quoteExcerpt } from '../../core/excerpt.ts';

/**
 * Errors of the OpenEnv client. Each names the server and the call (`step over WebSocket`,
 * `POST /reset`), so a failed run says which of several env servers broke and where, and each
 * ends with a fix. An action the server rejects is not among them: it comes back as
 * `info.invalidAction`, as the Env contract says.
 */

/** The fix for a server that did not answer in time. */
export const MORE_TIME =
  "The server may be busy or stuck: check its log, or allow more time with #timeout=SECONDS after the server's URL (openenv@URL#timeout=120; messageTimeoutMs in code).";

/** Where a call went: `OpenEnv server at http://127.0.0.1:8000`, `reset over WebSocket`. */
export interface OpenEnvCallSite {
  server: string;
  call: string;
}

/** Any failure of the OpenEnv client; catch this to catch them all. */
export class OpenEnvError extends DreamGymError {
  override name = 'OpenEnvError';
  constructor(
    readonly site: OpenEnvCallSite,
    message: string,
  ) {
    super(`${site.server}: ${site.call} ${message}`);
  }
}

/**
 * The server could not be reached, dropped the connection, or did not answer in time. The
 * episode in progress is lost (the server may or may not have stepped); a `reset` opens a new
 * session.
 */
export class OpenEnvConnectionError extends OpenEnvError {
  override name = 'OpenEnvConnectionError';
  constructor(
    site: OpenEnvCallSite,
    readonly problem: string,
    readonly fix: string,
  ) {
    super(site, `${problem}. ${fix}`);
  }
}

/**
 * The server refused a new session: all its session slots are taken (OpenEnv's
 * `CAPACITY_REACHED`, or HTTP 503 from dreamgym's own server).
 */
export class OpenEnvCapacityError extends OpenEnvError {
  override name = 'OpenEnvCapacityError';
  constructor(
    site: OpenEnvCallSite,
    /** Sessions open on the server, when it said. */
    readonly activeSessions?: number,
    /** The server's session limit, when it said. */
    readonly maxSessions?: number,
  ) {
    const counts =
      maxSessions !== undefined
        ? ` (${activeSessions ?? maxSessions} of ${maxSessions} in use)`
        : '';
    super(
      site,
      `was refused: the server has no free session${counts}. Each open env holds one session until close(): close envs you no longer use, run fewer envs against this server at once, or restart it with more sessions (OpenEnv's max_concurrent_envs, 1 by default and only above 1 for envs marked SUPPORTS_CONCURRENT_SESSIONS; dreamgym serve --max-sessions).`,
    );
  }
}

/**
 * The server answered with an error of its own: the env raised (`EXECUTION_ERROR`), could not be
 * made (`FACTORY_ERROR`), the session failed (`SESSION_ERROR`), or an HTTP error status.
 */
export class OpenEnvServerError extends OpenEnvError {
  override name = 'OpenEnvServerError';
  constructor(
    site: OpenEnvCallSite,
    /** OpenEnv's error code (`EXECUTION_ERROR`, …) or `HTTP <status>`. */
    readonly code: string,
    readonly serverMessage: string,
    readonly fix: string,
  ) {
    super(site, `failed on the server (${code}): ${quoteExcerpt(serverMessage)}. ${fix}`);
  }
}

/** The server answered something that is not OpenEnv's protocol. */
export class OpenEnvProtocolError extends OpenEnvError {
  override name = 'OpenEnvProtocolError';
  constructor(
    site: OpenEnvCallSite,
    readonly problem: string,
  ) {
    super(
      site,
      `answered ${problem}. Check that the URL is the root of an OpenEnv server (for dreamgym serve, http://HOST:PORT/openenv) and that it speaks OpenEnv's env protocol (reset/step/state).`,
    );
  }
}
