import { describe, expect, it } from 'vitest';
import { LlmAbortedError } from './errors.ts';
import { ConcurrencyLimiter } from './limiter.ts';

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ConcurrencyLimiter', () => {
  it('runs at most maxConcurrency tasks at once, in arrival order', async () => {
    const limiter = new ConcurrencyLimiter(2);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        limiter.run(async () => {
          started.push(i);
          peak = Math.max(peak, ++running);
          await tick(5);
          running--;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4, 5]);
    expect(limiter.active).toBe(0);
  });

  it('frees the slot when a task fails', async () => {
    const limiter = new ConcurrencyLimiter(1);
    await expect(limiter.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await limiter.run(async () => 'next')).toBe('next');
  });

  it('drops a waiter whose signal aborts', async () => {
    const limiter = new ConcurrencyLimiter(1);
    const blocker = limiter.run(() => tick(30));
    const controller = new AbortController();
    const waiter = limiter.run(async () => 'never', controller.signal);
    expect(limiter.waiting).toBe(1);
    controller.abort();
    await expect(waiter).rejects.toThrow(LlmAbortedError);
    expect(limiter.waiting).toBe(0);
    await blocker;
    expect(limiter.active).toBe(0);
  });

  it('rejects a nonsensical size', () => {
    expect(() => new ConcurrencyLimiter(0)).toThrow(/positive integer/);
  });
});
