import {
  ConfigError,
  DreamGymError,
  EnvClosedError,
  EnvNotResetError,
  EpisodeEndedError,
  TaskError,
} from '../core/errors.ts';

/**
 * Errors the env server answers with. Each carries its HTTP status and a message that names the
 * fix, because the reader is whoever runs the remote trainer, looking at its log.
 */

/** A request field is missing or malformed (HTTP 400). The message names the field. */
export class RequestError extends DreamGymError {
  override name = 'RequestError';
}

/** Every session slot is taken (HTTP 503). */
export class SessionLimitError extends DreamGymError {
  override name = 'SessionLimitError';
  constructor(
    readonly maxSessions: number,
    idleTimeoutMs: number,
  ) {
    const reaping =
      idleTimeoutMs > 0 ? `, wait for idle ones to be closed after ${idleTimeoutMs / 1000} s` : '';
    super(
      `all ${maxSessions} sessions are in use (--max-sessions ${maxSessions}): close finished sessions${reaping}, or restart the server with a larger --max-sessions.`,
    );
  }
}

/** No open session has this id (HTTP 404): never created, closed, or reaped when idle. */
export class UnknownSessionError extends DreamGymError {
  override name = 'UnknownSessionError';
  constructor(
    readonly id: number,
    idleTimeoutMs: number,
  ) {
    const reaping =
      idleTimeoutMs > 0 ? ` or reaped after ${idleTimeoutMs / 1000} s without requests` : '';
    super(`no open session ${id}: it was never created, was closed${reaping}. Create a new one.`);
  }
}

/** The session is in the wrong phase for the call (HTTP 409): no episode yet, or it ended. */
export class EpisodePhaseError extends DreamGymError {
  override name = 'EpisodePhaseError';
}

/** The HTTP status for an error thrown while serving a request. */
export function httpStatus(error: unknown): 400 | 404 | 409 | 500 | 503 {
  if (error instanceof RequestError || error instanceof TaskError) return 400;
  if (error instanceof ConfigError) return 400;
  if (error instanceof UnknownSessionError) return 404;
  if (
    error instanceof EpisodePhaseError ||
    error instanceof EnvNotResetError ||
    error instanceof EpisodeEndedError ||
    error instanceof EnvClosedError
  ) {
    return 409;
  }
  if (error instanceof SessionLimitError) return 503;
  return 500;
}
