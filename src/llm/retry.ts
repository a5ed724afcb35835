import { LlmAbortedError, LlmError, LlmRateLimitError } from './errors.ts';

/** How many times and how long apart to retry a retryable failure. */
export interface RetryPolicy {
  /** Requests sent again after a retryable failure, at most. Default 3. */
  maxRetries: number;
  /** Back-off before the first retry, doubled each time. Default 500 ms. */
  initialDelayMs: number;
  /** Cap on any wait, Retry-After included. Default 30 s. */
  maxDelayMs: number;
}

/** 3 retries with exponential back-off from 500 ms. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
};

/**
 * Exponential back-off with "equal jitter": half the delay is fixed, half random, so clients
 * that failed together (a server restart, a burst of 429s) do not all come back together.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random = Math.random): number {
  const delay = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** retry);
  return delay / 2 + random() * (delay / 2);
}

export interface RetryHooks {
  /** Aborts the waits between attempts. */
  signal?: AbortSignal;
  /** Names the server in the abort error. */
  server: string;
  /** Called before each retry with the error that caused it and the wait. */
  onRetry?: (error: LlmError, delayMs: number) => void;
}

/**
 * Runs `attempt` until it succeeds, fails with an error that is not retryable, or has been
 * retried `policy.maxRetries` times. A 429's Retry-After is honoured over the back-off (capped at
 * `maxDelayMs`): coming back sooner than the server asked only earns another 429.
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  hooks: RetryHooks,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt();
    } catch (error) {
      if (!(error instanceof LlmError) || !error.retryable || retry >= policy.maxRetries) {
        if (error instanceof LlmError) error.gaveUpAfter(retry + 1);
        throw error;
      }
      const retryAfter = error instanceof LlmRateLimitError ? error.retryAfterMs : undefined;
      const delay = Math.min(policy.maxDelayMs, retryAfter ?? backoffDelay(retry, policy));
      hooks.onRetry?.(error, delay);
      await sleep(delay, hooks.signal, hooks.server);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined, server: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new LlmAbortedError(server));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new LlmAbortedError(server));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
