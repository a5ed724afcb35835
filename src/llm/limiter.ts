import { LlmAbortedError } from './errors.ts';

/**
 * Caps how many requests run at once. Share one limiter between clients that hit the same
 * server, so together they stay under what it can serve. Waiters start in arrival order.
 */
export class ConcurrencyLimiter {
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(readonly maxConcurrency: number) {
    if (!Number.isInteger(maxConcurrency) || maxConcurrency < 1) {
      throw new RangeError(
        `ConcurrencyLimiter: maxConcurrency must be a positive integer, got ${maxConcurrency}`,
      );
    }
  }

  /** Requests running now. */
  get active(): number {
    return this.running;
  }

  /** Requests waiting for a slot. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Runs `task` once a slot is free. An abort while waiting gives up the place in the queue. */
  async run<T>(task: () => Promise<T>, signal?: AbortSignal, server = 'limiter'): Promise<T> {
    await this.acquire(signal, server);
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  private acquire(signal: AbortSignal | undefined, server: string): Promise<void> {
    if (signal?.aborted) return Promise.reject(new LlmAbortedError(server));
    if (this.running < this.maxConcurrency) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const start = () => {
        signal?.removeEventListener('abort', onAbort);
        this.running++;
        resolve();
      };
      const onAbort = () => {
        this.queue.splice(this.queue.indexOf(start), 1);
        reject(new LlmAbortedError(server));
      };
      this.queue.push(start);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  private release(): void {
    this.running--;
    this.queue.shift()?.();
  }
}
