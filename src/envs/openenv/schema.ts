import { quoteExcerpt } from '../../core/excerpt.ts';
import { type OpenEnvCallSite, OpenEnvProtocolError, OpenEnvServerError } from './errors.ts';
import { errorDetail, requestJson } from './http.ts';

/**
 * The JSON Schema of the server's actions, from OpenEnv's `GET /schema` (`{ action, observation,
 * state }`); `undefined` when the server has no such endpoint (HTTP 404), in which case actions
 * are written as JSON objects. Fetched over HTTP whatever the transport: OpenEnv serves it in
 * every mode.
 */
export async function fetchActionSchema(
  root: string,
  server: string,
  timeoutMs: number,
): Promise<unknown> {
  const site: OpenEnvCallSite = { server, call: 'GET /schema' };
  const answer = await requestJson(site, `${root}/schema`, { method: 'GET' }, timeoutMs);
  if (answer.status === 404) return undefined;
  if (answer.status < 200 || answer.status >= 300) {
    throw new OpenEnvServerError(
      site,
      `HTTP ${answer.status}`,
      errorDetail(answer),
      "See the server's log; the client reads the action schema to turn text actions into the server's action objects.",
    );
  }
  const action = (answer.json as { action?: unknown } | undefined)?.action;
  if (typeof action !== 'object' || action === null) {
    throw new OpenEnvProtocolError(
      site,
      `a schema without an "action" object: ${quoteExcerpt(errorDetail(answer))}`,
    );
  }
  return action;
}
