import { describe, expect, it } from 'vitest';
import { withDeadline } from './deadline.ts';
import {
  LlmAbortedError,
  LlmAuthError,
  LlmRateLimitError,
  LlmServerError,
  LlmTimeoutError,
} from './errors.ts';
import { withRetries } from './retry.ts';

const policy = { maxRetries: 3, initialDelayMs: 1, maxDelayMs: 1_000 };

describe('withRetries', () => {
  it('retries retryable errors until success and reports each retry', async () => {
    const failures = [new LlmServerError('s', 500, ''), new LlmTimeoutError('s', 5)];
    const seen: string[] = [];
    const result = await withRetries(
      async () => {
        const failure = failures.shift();
        if (failure) throw failure;
        return 'ok';
      },
      policy,
      { server: 's', onRetry: (error) => seen.push(error.name) },
    );
    expect(result).toBe('ok');
    expect(seen).toEqual(['LlmServerError', 'LlmTimeoutError']);
  });

  it('never retries errors that a retry cannot fix', async () => {
    let calls = 0;
    const error = await withRetries(
      async () => {
        calls++;
        throw new LlmAuthError('s', 401, '');
      },
      policy,
      { server: 's' },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmAuthError);
    expect(calls).toBe(1);
  });

  it('waits what Retry-After asks, capped at maxDelayMs', async () => {
    const delays: number[] = [];
    let calls = 0;
    await withRetries(
      async () => {
        if (calls++ < 2) throw new LlmRateLimitError('s', calls === 1 ? 30 : 60_000, '');
        return 'ok';
      },
      { ...policy, maxDelayMs: 50 },
      { server: 's', onRetry: (_, delay) => delays.push(delay) },
    );
    expect(delays).toEqual([30, 50]);
  });

  it('stops waiting when the caller aborts', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const started = performance.now();
    await expect(
      withRetries(
        async () => {
          throw new LlmServerError('s', 503, '');
        },
        { ...policy, initialDelayMs: 10_000, maxDelayMs: 10_000 },
        { server: 's', signal: controller.signal },
      ),
    ).rejects.toThrow(LlmAbortedError);
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('withDeadline', () => {
  it('times out a backend that ignores its abort signal', async () => {
    const never = () => new Promise<string>(() => {});
    await expect(withDeadline(never, { timeoutMs: 20, server: 's' })).rejects.toThrow(
      /s: no answer within 20 ms/,
    );
  });

  it('tells the caller abort apart from the deadline', async () => {
    const controller = new AbortController();
    const seen: AbortSignal[] = [];
    const run = (signal: AbortSignal) => {
      seen.push(signal);
      return new Promise<string>((_, reject) =>
        signal.addEventListener('abort', () => reject(new Error('aborted'))),
      );
    };
    setTimeout(() => controller.abort(), 10);
    await expect(
      withDeadline(run, { timeoutMs: 5_000, signal: controller.signal, server: 's' }),
    ).rejects.toThrow(LlmAbortedError);
    expect(seen[0]?.aborted).toBe(true);
  });

  it('passes through answers and the backend’s own errors', async () => {
    expect(await withDeadline(async () => 42, { timeoutMs: 100, server: 's' })).toBe(42);
    const auth = new LlmAuthError('s', 401, '');
    await expect(
      withDeadline(
        async () => {
          throw auth;
        },
        { timeoutMs: 100, server: 's' },
      ),
    ).rejects.toBe(auth);
  });
});
