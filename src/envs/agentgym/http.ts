import { z } from 'zod';
import { quoteExcerpt } from '../../core/excerpt.ts';
import { withRetries } from '../../core/retry.ts';
import { DEFAULT_SERVER_TIMEOUT_MS } from '../client-settings.ts';
import {
  AgentGymHttpError,
  AgentGymProtocolError,
  AgentGymServerError,
  type CallSite,
} from './errors.ts';

export interface HttpOptions {
  /**
   * Time limit of one request, body included. Default 30 s, or `#timeout=SECONDS` on the env ref:
   * an ALFWorld reset loads a game and WebShop's first search warms its index, in seconds; a
   * server slower than that is given more (AgentGym's own client allows 300 s).
   */
  timeoutMs: number;
  /** Extra attempts after a 503 or a failed connection; never after a timeout or another status. */
  retries: number;
  /** Wait before the first retry, doubled for each further one (with jitter: half fixed, half random). */
  backoffMs: number;
}

export const DEFAULT_HTTP_OPTIONS: HttpOptions = {
  timeoutMs: DEFAULT_SERVER_TIMEOUT_MS,
  retries: 3,
  backoffMs: 250,
};

/**
 * Connection failures that happen before a request leaves the machine. Retrying those is safe
 * even for `POST /step`; a reset connection after sending is not, since the server may have
 * stepped already.
 */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

type Query = Record<string, string | number>;

/** How servers that catch their exceptions report them, with HTTP 200. */
const ServerErrorAnswer = z.object({ error: z.string() });

/**
 * A small JSON-over-HTTP client for one AgentGym server: a time limit per request, bounded
 * retries with exponential backoff on 503 and on failed connections (4xx and other 5xx fail at
 * once: repeating them gives the same answer), and every answer checked against a schema, so the
 * envs above only see well-formed data. A 2xx answer `{ error: "…" }` is the server reporting a
 * failure (AgentGym's servers built on the ALFWorld and TextCraft templates catch exceptions and
 * answer so): an {@link AgentGymServerError}. Errors name the server and the call.
 */
export class JsonHttpClient {
  readonly baseUrl: string;
  readonly options: HttpOptions;

  /** `serverName` labels errors, e.g. `AgentGym webshop server`. */
  constructor(
    baseUrl: string,
    readonly serverName: string,
    options: Partial<HttpOptions> = {},
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, '');
    this.options = { ...DEFAULT_HTTP_OPTIONS, ...options };
  }

  /** GET `path?query`; safe to repeat, so any failed connection is retried. */
  get<T>(path: string, query: Query, schema: z.ZodType<T>): Promise<T> {
    const search = new URLSearchParams(
      Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    return this.request('GET', `${path}?${search}`, undefined, schema);
  }

  /** POST a JSON body to `path`; retried only where the request cannot have reached the server. */
  post<T>(path: string, body: unknown, schema: z.ZodType<T>): Promise<T> {
    return this.request('POST', path, body, schema);
  }

  /** Names a call in errors: `AgentGym webshop server at http://…`, `POST /step`. */
  site(method: string, path: string): CallSite {
    return {
      server: `${this.serverName} at ${this.baseUrl}`,
      call: `${method} ${path.split('?')[0]}`,
    };
  }

  private request<T>(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
  ): Promise<T> {
    const site = this.site(method, path);
    const { retries, backoffMs, timeoutMs } = this.options;
    const attempt = async (n: number): Promise<T> => {
      let response: Response;
      let text: string;
      try {
        response = await fetch(`${this.baseUrl}${path}`, {
          method,
          signal: AbortSignal.timeout(timeoutMs),
          ...(body !== undefined && {
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }),
        });
        text = await response.text();
      } catch (error) {
        if (isTimeout(error)) {
          throw new AgentGymHttpError(
            site,
            `timed out after ${timeoutMs} ms`,
            "The server may be busy or stuck: check its log, or allow more time with #timeout=SECONDS after the server's URL (agentgym:NAME@URL#timeout=300; http.timeoutMs in code).",
          );
        }
        const code = connectionCode(error);
        throw new AgentGymHttpError(
          site,
          `could not reach the server (${code}) after ${n + 1} attempt${n === 0 ? '' : 's'}`,
          'Check that the AgentGym server is running and listening at that URL (AgentGym starts them with e.g. `webshop --host 0.0.0.0 --port 36001`).',
          undefined,
          method === 'GET' || NOT_SENT.has(code),
        );
      }
      if (!response.ok) throw statusError(site, response.status, text, n + 1);
      return parseBody(site, text, schema);
    };
    return withRetries(
      attempt,
      { maxRetries: retries, initialDelayMs: backoffMs, maxDelayMs: 30_000 },
      { retryable: (error) => error instanceof AgentGymHttpError && error.retryable },
    );
  }
}

/** AbortSignal.timeout's DOMException, whether it fires before the headers or mid-body. */
function isTimeout(error: unknown): boolean {
  return error instanceof Error && error.name === 'TimeoutError';
}

/** `fetch failed` hides the reason in `cause` (Node's undici): ECONNREFUSED and the like. */
function connectionCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; errors?: Array<{ code?: unknown }> } }).cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
}

function statusError(site: CallSite, status: number, text: string, attempts: number) {
  if (status === 503) {
    return new AgentGymHttpError(
      site,
      `was refused with HTTP 503 (unavailable) ${attempts} times`,
      'The server is overloaded or still starting: wait and run again, or allow more attempts with the http.retries option.',
      status,
      true,
    );
  }
  const fix =
    status === 404
      ? 'The server has no such endpoint: check that the URL is the root of an AgentGym server of the right kind (the NAME of agentgym:NAME@URL).'
      : status === 422
        ? 'The server rejected the request fields: this client and the server disagree on the protocol; check the server version.'
        : status >= 500
          ? "The server failed while handling it: see the server's log (a session it no longer holds, or a task index past its data, are common causes)."
          : 'The server refused the request.';
  return new AgentGymHttpError(site, `answered HTTP ${status}: ${quoteExcerpt(text)}`, fix, status);
}

function parseBody<T>(site: CallSite, text: string, schema: z.ZodType<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new AgentGymProtocolError(site, `with a body that is not JSON: ${quoteExcerpt(text)}`);
  }
  const reported = ServerErrorAnswer.safeParse(json);
  if (reported.success) throw new AgentGymServerError(site, reported.data.error);
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new AgentGymProtocolError(
      site,
      `an unexpected body (${z.prettifyError(parsed.error).replace(/\n/g, '; ')}): ${quoteExcerpt(text)}`,
    );
  }
  return parsed.data;
}
