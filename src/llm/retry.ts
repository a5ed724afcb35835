import { type RetryPolicy, withRetries as retryLoop } from '../core/retry.ts';
import { LlmAbortedError, LlmError, LlmRateLimitError } from './errors.ts';

export type { RetryPolicy } from '../core/retry.ts';

/** 3 retries with exponential back-off from 500 ms, no wait over 30 s. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  initialDelayMs: 500,
  maxDelayMs: 30_000,
};

/** How an LLM call is retried besides its policy. */
export interface RetryHooks {
  /** Aborts the waits between attempts. */
  signal?: AbortSignal;
  /** Names the server in the abort error. */
  server: string;
  /** Called before each retry with the error that caused it and the wait. */
  onRetry?: (error: LlmError, delayMs: number) => void;
}

/**
 * The core retry loop with LLM rules: `LlmError`s marked retryable are retried; a 429's
 * Retry-After is honoured over the back-off (capped at `maxDelayMs`): coming back sooner than the
 * server asked only earns another 429. The error given up on says how many attempts it took.
 */
export function withRetries<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  hooks: RetryHooks,
): Promise<T> {
  return retryLoop(attempt, policy, {
    retryable: (error) => error instanceof LlmError && error.retryable,
    waitHint: (error) => (error instanceof LlmRateLimitError ? error.retryAfterMs : undefined),
    ...(hooks.signal && { signal: hooks.signal }),
    abortError: () => new LlmAbortedError(hooks.server),
    onRetry: (error, delay) => hooks.onRetry?.(error as LlmError, delay),
    onGiveUp: (error, attempts) => {
      if (error instanceof LlmError) error.gaveUpAfter(attempts);
    },
  });
}
