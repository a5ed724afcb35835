import { DreamGymError } from '../../core/errors.ts';
import { quoteExcerpt } from '../../core/excerpt.ts';

/**
 * Errors of the AgentGym client. Each names the server (kind and URL) and the call (`POST /step`),
 * so a failed run says which of several env servers broke and where; and each ends with a fix.
 */

/** Where a call went: `AgentGym webshop server at http://127.0.0.1:36001`, `POST /step`. */
export interface CallSite {
  server: string;
  call: string;
}

/** The call failed at the HTTP level: timeout, no connection, or a status other than 2xx. */
export class AgentGymHttpError extends DreamGymError {
  override name = 'AgentGymHttpError';
  constructor(
    readonly site: CallSite,
    readonly problem: string,
    readonly fix: string,
    /** The HTTP status, when the server answered. */
    readonly status?: number,
    /** A retry may succeed: a 503, or a connection that failed before the request was sent. */
    readonly retryable = false,
  ) {
    super(`${site.server}: ${site.call} ${problem}. ${fix}`);
  }
}

/** The server answered 2xx with something that is not the AgentGym protocol. */
export class AgentGymProtocolError extends DreamGymError {
  override name = 'AgentGymProtocolError';
  constructor(
    readonly site: CallSite,
    readonly problem: string,
  ) {
    super(
      `${site.server}: ${site.call} answered ${problem}. Check that the URL points at the right AgentGym server (the NAME of agentgym:NAME@URL) and that its version speaks the protocol this client expects.`,
    );
  }
}

/**
 * The server reported an error in a 2xx answer (`{ error }`), as AgentGym's ALFWorld, TextCraft,
 * BabyAI, SciWorld and LMRL-Gym servers do.
 */
export class AgentGymServerError extends DreamGymError {
  override name = 'AgentGymServerError';
  constructor(
    readonly site: CallSite,
    readonly serverMessage: string,
  ) {
    super(
      `${site.server}: ${site.call} failed on the server: ${quoteExcerpt(serverMessage)}. See the server's log; a task index out of the server's range or a session the server dropped are the usual causes.`,
    );
  }
}
