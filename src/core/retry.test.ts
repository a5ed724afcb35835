import { describe, expect, it } from 'vitest';
import { backoffDelay, withRetries } from './retry.ts';

const policy = { maxRetries: 3, initialDelayMs: 1, maxDelayMs: 1_000 };
class Flaky extends Error {}

describe('backoffDelay', () => {
  it('doubles per retry, jitters within the upper half, and stays under the cap', () => {
    const p = { maxRetries: 3, initialDelayMs: 500, maxDelayMs: 30_000 };
    expect(backoffDelay(0, p, () => 0)).toBe(250);
    expect(backoffDelay(0, p, () => 1)).toBe(500);
    expect(backoffDelay(3, p, () => 0)).toBe(2_000);
    expect(backoffDelay(20, p, () => 1)).toBe(p.maxDelayMs);
  });
});

describe('withRetries', () => {
  it('retries what the caller calls retryable, numbering the attempts, until success', async () => {
    const attempts: number[] = [];
    const retries: number[] = [];
    const result = await withRetries(
      async (n) => {
        attempts.push(n);
        if (n < 2) throw new Flaky('not yet');
        return 'ok';
      },
      policy,
      { retryable: (e) => e instanceof Flaky, onRetry: (_e, _delay, retry) => retries.push(retry) },
    );
    expect(result).toBe('ok');
    expect(attempts).toEqual([0, 1, 2]);
    expect(retries).toEqual([0, 1]);
  });

  it('throws a failure that is not retryable at once, and says how many attempts it took', async () => {
    let gaveUp = 0;
    const error = await withRetries(
      async () => {
        throw new Error('bad request');
      },
      policy,
      { retryable: (e) => e instanceof Flaky, onGiveUp: (_e, attempts) => (gaveUp = attempts) },
    ).catch((e: Error) => e);
    expect(error.message).toBe('bad request');
    expect(gaveUp).toBe(1);
  });

  it('gives up after maxRetries retries with the last failure', async () => {
    let calls = 0;
    let gaveUp = 0;
    const error = await withRetries(
      async (n) => {
        calls++;
        throw new Flaky(`failure ${n}`);
      },
      { ...policy, maxRetries: 2 },
      { retryable: () => true, onGiveUp: (_e, attempts) => (gaveUp = attempts) },
    ).catch((e: Error) => e);
    expect(error.message).toBe('failure 2');
    expect([calls, gaveUp]).toEqual([3, 3]);
  });

  it('takes the wait a failure asks for over the back-off, capped', async () => {
    const delays: number[] = [];
    await withRetries(
      async (n) => {
        if (n < 2) throw new Flaky();
        return 'ok';
      },
      { maxRetries: 3, initialDelayMs: 1, maxDelayMs: 40 },
      {
        retryable: () => true,
        waitHint: () => 30,
        onRetry: (_e, delay) => delays.push(delay),
      },
    );
    expect(delays).toEqual([30, 30]);
  });

  it('an abort during a wait throws the caller’s abort error', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const error = await withRetries(
      async () => {
        throw new Flaky();
      },
      { maxRetries: 3, initialDelayMs: 10_000, maxDelayMs: 10_000 },
      {
        retryable: () => true,
        signal: controller.signal,
        abortError: () => new Error('stopped by the caller'),
      },
    ).catch((e: Error) => e);
    expect(error.message).toBe('stopped by the caller');
  });
});
