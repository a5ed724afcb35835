/**
 * The one retry loop: bounded attempts with exponential back-off and jitter, used by the LLM
 * clients and the AgentGym HTTP client alike. What counts as retryable, and what error an abort
 * raises, is the caller's to say.
 */

/** How many times and how long apart to retry a retryable failure. */
export interface RetryPolicy {
  /** Attempts after the first, at most. */
  maxRetries: number;
  /** Back-off before the first retry, doubled each time. */
  initialDelayMs: number;
  /** Cap on any wait, a server's own Retry-After included. */
  maxDelayMs: number;
}

/**
 * Exponential back-off with "equal jitter": half the delay is fixed, half random, so clients
 * that failed together (a server restart, a burst of 429s) do not all come back together.
 */
export function backoffDelay(retry: number, policy: RetryPolicy, random = Math.random): number {
  const delay = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** retry);
  return delay / 2 + random() * (delay / 2);
}

/** What the loop needs to know besides the policy. */
export interface RetryOptions {
  /** Whether a failure may be retried; others are thrown at once. */
  retryable: (error: unknown) => boolean;
  /** A wait the failure itself asks for (a 429's Retry-After), taken over the back-off. */
  waitHint?: (error: unknown) => number | undefined;
  /** Aborts the waits between attempts. */
  signal?: AbortSignal;
  /** The error to throw when `signal` aborts a wait. */
  abortError?: () => Error;
  /** Called before each retry with the failure, the wait and the retry's number (0 first). */
  onRetry?: (error: unknown, delayMs: number, retry: number) => void;
  /** Called with the failure that is thrown and the attempts made. */
  onGiveUp?: (error: unknown, attempts: number) => void;
}

/**
 * Runs `attempt` (given its 0-based number) until it succeeds, fails with an error that is not
 * retryable, or has been retried `policy.maxRetries` times; then throws the last failure.
 */
export async function withRetries<T>(
  attempt: (n: number) => Promise<T>,
  policy: RetryPolicy,
  options: RetryOptions,
): Promise<T> {
  for (let retry = 0; ; retry++) {
    try {
      return await attempt(retry);
    } catch (error) {
      if (!options.retryable(error) || retry >= policy.maxRetries) {
        options.onGiveUp?.(error, retry + 1);
        throw error;
      }
      const delay = Math.min(
        policy.maxDelayMs,
        options.waitHint?.(error) ?? backoffDelay(retry, policy),
      );
      options.onRetry?.(error, delay, retry);
      await wait(delay, options);
    }
  }
}

function wait(ms: number, { signal, abortError }: RetryOptions): Promise<void> {
  const aborted = () => abortError?.() ?? new Error('aborted while waiting to retry');
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(aborted());
    const onAbort = () => {
      clearTimeout(timer);
      reject(aborted());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
