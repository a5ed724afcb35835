import { MORE_TIME, type OpenEnvCallSite, OpenEnvConnectionError } from './errors.ts';

/** An HTTP answer: its status and its body, parsed as JSON when it is JSON. */
export interface HttpAnswer {
  status: number;
  /** The parsed body; `undefined` when it is not JSON. */
  json: unknown;
  /** The body as text, for error messages. */
  text: string;
}

/**
 * One JSON request with a time limit on the whole exchange, body included. A server that cannot
 * be reached or does not answer in time is an {@link OpenEnvConnectionError}; any status comes
 * back for the caller to judge.
 */
export async function requestJson(
  site: OpenEnvCallSite,
  url: string,
  init: { method: 'GET' | 'POST'; body?: unknown },
  timeoutMs: number,
): Promise<HttpAnswer> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, {
      method: init.method,
      signal: AbortSignal.timeout(timeoutMs),
      ...(init.body !== undefined && {
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(init.body),
      }),
    });
    text = await response.text();
  } catch (error) {
    if (error instanceof Error && error.name === 'TimeoutError') {
      throw new OpenEnvConnectionError(site, `got no answer within ${timeoutMs} ms`, MORE_TIME);
    }
    throw new OpenEnvConnectionError(
      site,
      `could not reach the server (${connectionCode(error)})`,
      'Check that the OpenEnv server is running and listening at that URL.',
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, json, text };
}

/**
 * A body's error detail (FastAPI's `{ detail }`), else its text: the server's own words, for a
 * message to quote with `quoteExcerpt`.
 */
export function errorDetail(answer: HttpAnswer): string {
  const detail = (answer.json as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  return detail !== undefined ? JSON.stringify(detail) : answer.text;
}

/** `fetch failed` hides the reason in `cause` (Node's undici): ECONNREFUSED and the like. */
function connectionCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; errors?: Array<{ code?: unknown }> } }).cause;
  const code = cause?.code ?? cause?.errors?.[0]?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
}
