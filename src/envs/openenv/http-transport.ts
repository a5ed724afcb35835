import { quoteExcerpt } from '../../core/excerpt.ts';
import {
  type OpenEnvCallSite,
  OpenEnvCapacityError,
  type OpenEnvError,
  OpenEnvProtocolError,
  OpenEnvServerError,
} from './errors.ts';
import { errorDetail, type HttpAnswer, requestJson } from './http.ts';
import { describeRejection, type OpenEnvAnswer, parseAnswer, type Rejection } from './protocol.ts';
import type { OpenEnvClientOptions, OpenEnvTransport } from './transport.ts';

/**
 * OpenEnv over plain HTTP: `POST /reset` with the reset keywords, `POST /step` with `{ action }`,
 * `GET /state`. OpenEnv's own servers keep no state between HTTP requests (each makes a fresh
 * env), so a step there fails or answers for an env that was never reset; use the WebSocket
 * transport for them. A server that keeps HTTP sessions names one in its reset's reply
 * (`session_id`, as dreamgym's `serve` does): it is passed back with every later request and
 * closed with `POST /close`. HTTP 422 on a step is a rejected action (FastAPI's validation
 * `detail`), the state unchanged.
 */
export class HttpTransport implements OpenEnvTransport {
  /** The session the server's reset named, if it keeps HTTP sessions. */
  private sessionId: number | undefined;

  constructor(
    /** The server's root URL, `http(s)://…` without a trailing slash. */
    readonly root: string,
    private readonly server: string,
    private readonly options: OpenEnvClientOptions,
  ) {}

  async reset(kwargs: Record<string, unknown>): Promise<OpenEnvAnswer> {
    const site = this.site('POST /reset');
    const body = this.ok(site, await this.call(site, '/reset', 'POST', this.withSession(kwargs)));
    const named = (body as { session_id?: unknown } | null)?.session_id;
    if (Number.isSafeInteger(named)) this.sessionId = named as number;
    return parseAnswer(site, body);
  }

  async step(action: Record<string, unknown>): Promise<OpenEnvAnswer | Rejection> {
    const site = this.site('POST /step');
    const answer = await this.call(site, '/step', 'POST', this.withSession({ action }));
    if (answer.status === 422) {
      const detail = (answer.json as { detail?: unknown } | undefined)?.detail;
      return { rejected: describeRejection(errorDetail(answer), detail) };
    }
    return parseAnswer(site, this.ok(site, answer));
  }

  async state(): Promise<Record<string, unknown>> {
    const site = this.site('GET /state');
    const query = this.sessionId === undefined ? '' : `?session_id=${this.sessionId}`;
    const answer = await this.call(site, `/state${query}`, 'GET');
    const body = this.ok(site, answer);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new OpenEnvProtocolError(
        site,
        `a state that is not a JSON object: ${quoteExcerpt(errorDetail(answer))}`,
      );
    }
    return body as Record<string, unknown>;
  }

  /** Ends the server's HTTP session, where it keeps one; a server that is gone is no error. */
  async close(): Promise<void> {
    const id = this.sessionId;
    this.sessionId = undefined;
    if (id === undefined) return;
    await this.call(this.site('POST /close'), '/close', 'POST', { session_id: id }).catch(
      () => undefined,
    );
  }

  private withSession(body: Record<string, unknown>): Record<string, unknown> {
    return this.sessionId === undefined ? body : { ...body, session_id: this.sessionId };
  }

  private call(site: OpenEnvCallSite, path: string, method: 'GET' | 'POST', body?: unknown) {
    return requestJson(
      site,
      `${this.root}${path}`,
      { method, ...(body !== undefined && { body }) },
      this.options.messageTimeoutMs,
    );
  }

  private site(call: string): OpenEnvCallSite {
    return { server: this.server, call };
  }

  /** The JSON body of a 2xx answer; any other status is the error it stands for. */
  private ok(site: OpenEnvCallSite, answer: HttpAnswer): unknown {
    if (answer.status >= 200 && answer.status < 300) {
      if (answer.json === undefined) {
        throw new OpenEnvProtocolError(
          site,
          `a body that is not JSON: ${quoteExcerpt(errorDetail(answer))}`,
        );
      }
      return answer.json;
    }
    throw statusError(site, answer);
  }
}

function statusError(site: OpenEnvCallSite, answer: HttpAnswer): OpenEnvError {
  const { status } = answer;
  if (status === 503) return new OpenEnvCapacityError(site);
  const fix =
    status === 404
      ? 'The server has no such endpoint: check that the URL is the root of an OpenEnv server (for dreamgym serve, http://HOST:PORT/openenv); servers in production mode serve no /reset and /step over HTTP: use the WebSocket transport (openenv@URL).'
      : status === 409
        ? 'The server holds no episode for this request: HTTP requests to it share one session, which another client may have reset or closed; use the WebSocket transport (openenv@URL) for a session of your own.'
        : status === 401 || status === 403
          ? 'The server wants credentials, which OpenEnv clients do not send (OpenEnv has no authentication): serve it without a token for this client.'
          : site.call === 'POST /step' && status >= 500
            ? "The env failed while stepping: see the server's log. OpenEnv's own servers answer each HTTP request with a fresh env that was never reset: use the WebSocket transport (openenv@URL) for them."
            : "See the server's log.";
  return new OpenEnvServerError(site, `HTTP ${status}`, errorDetail(answer), fix);
}
