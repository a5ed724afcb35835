/**
 * What the OpenAI-compatible chat client and embedder share: building the SDK client with its
 * own retries off (ours count and back off uniformly across backends), and mapping the SDK's
 * errors onto ours.
 */
import OpenAI from 'openai';
import {
  LlmAbortedError,
  LlmAuthError,
  LlmBadRequestError,
  LlmConnectionError,
  LlmError,
  LlmModelNotFoundError,
  LlmRateLimitError,
  LlmServerError,
} from './errors.ts';

export interface OpenAiConnectionOptions {
  /** The server's base URL, with its /v1. Default https://api.openai.com/v1. */
  baseURL?: string;
  /** Default: env OPENAI_API_KEY, else 'none' (local servers accept any key). */
  apiKey?: string;
  /** Sent with every request (e.g. an organisation or a gateway's routing header). */
  headers?: Record<string, string>;
}

export function connectOpenAi(options: OpenAiConnectionOptions): OpenAI {
  return new OpenAI({
    baseURL: options.baseURL ?? 'https://api.openai.com/v1',
    apiKey: options.apiKey ?? process.env.OPENAI_API_KEY ?? 'none',
    defaultHeaders: options.headers,
    maxRetries: 0,
    // Our own deadline aborts each request first; this only bounds the SDK itself.
    timeout: 24 * 3600_000,
  });
}

/** Maps an SDK error to the matching LlmError. `model` names the model in a 404. */
export function fromOpenAiError(
  error: unknown,
  server: string,
  model: string,
  availableModels?: readonly string[],
): LlmError {
  if (error instanceof LlmError) return error;
  if (error instanceof OpenAI.APIUserAbortError) return new LlmAbortedError(server);
  if (error instanceof OpenAI.APIConnectionError) {
    const cause = error.cause instanceof Error ? causeChain(error.cause) : error.message;
    return new LlmConnectionError(server, cause);
  }
  if (error instanceof OpenAI.APIError && error.status !== undefined) {
    const status = error.status;
    const detail = errorDetail(error);
    if (status === 429) return new LlmRateLimitError(server, retryAfterMs(error.headers), detail);
    if (status === 401 || status === 403) return new LlmAuthError(server, status, detail);
    if (status === 404) return new LlmModelNotFoundError(server, model, availableModels);
    if (status === 408 || status === 409 || status >= 500)
      return new LlmServerError(server, status, detail);
    return new LlmBadRequestError(server, status, detail);
  }
  const message = error instanceof Error ? error.message : String(error);
  return new LlmError(`${server}: unexpected error from the OpenAI SDK: ${message}`, {
    cause: error,
  });
}

/** The server's own words, without the SDK's "400 " status prefix. */
export function errorDetail(error: InstanceType<typeof OpenAI.APIError>): string {
  return error.message.replace(/^\d{3}\s*/, '').replace(/^status code \(no body\)$/, '');
}

/**
 * Retry-After in ms: `retry-after-ms` (OpenAI's), else `retry-after` in seconds or as an HTTP
 * date. Undefined when absent or unreadable, and the back-off applies.
 */
export function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number(headers?.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** "fetch failed: other side closed": the messages down the cause chain, which name the real problem. */
function causeChain(error: Error): string {
  const parts: string[] = [];
  for (let e: unknown = error; e instanceof Error && parts.length < 4; e = e.cause)
    parts.push(e.message);
  return parts.join(': ');
}
