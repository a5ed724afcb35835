import type { Trajectory } from '../core/types.ts';
import type { ReplayBuffer } from './replay-buffer.ts';

export interface WriteBehindOptions {
  /**
   * Trajectories waiting at most; beyond, new ones are dropped with a warning rather than held
   * in memory without bound (another process may hold the write lock for a long import).
   * Default 2,000.
   */
  maxPending?: number;
  /** Where failed or dropped writes are reported. */
  warn: (message: string) => void;
}

/**
 * Adds trajectories to a replay buffer in the background: `push` returns at once, and whatever
 * was pushed while the previous add ran goes in as the next add. For servers: the step that ends
 * an episode must not wait for the buffer's write lock, which another process's bulk import can
 * hold for minutes (issue 22). `close()` writes what is still waiting.
 */
export class WriteBehind {
  private waiting: Trajectory[] = [];
  private running: Promise<void> | undefined;
  private dropped = 0;
  private closed = false;
  private readonly maxPending: number;

  constructor(
    private readonly buffer: ReplayBuffer,
    private readonly options: WriteBehindOptions,
  ) {
    this.maxPending = options.maxPending ?? 2000;
  }

  /** Trajectories pushed and not yet written. */
  get pending(): number {
    return this.waiting.length;
  }

  /** Queues `trajectory` for the buffer; never waits and never throws. */
  push(trajectory: Trajectory): void {
    if (this.closed) {
      this.options.warn(`episode ${trajectory.id} ended after the buffer was closed; not stored.`);
      return;
    }
    if (this.waiting.length >= this.maxPending) {
      if (this.dropped++ === 0) {
        this.options.warn(
          `${this.maxPending} episodes are waiting for ${this.buffer.path} (another process holds its write lock?); dropping new ones until they are written.`,
        );
      }
      return;
    }
    this.waiting.push(trajectory);
    this.running ??= this.drain();
  }

  /** Resolves when everything pushed so far has been written (or reported as failed). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Writes what is waiting, then refuses further pushes. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      try {
        await this.buffer.add(batch);
      } catch (error) {
        this.options.warn(
          `could not store ${batch.length} episodes in ${this.buffer.path}: ${(error as Error).message}`,
        );
      }
      if (this.dropped > 0) {
        this.options.warn(`${this.dropped} episodes were dropped while the buffer was busy.`);
        this.dropped = 0;
      }
    }
    this.running = undefined;
  }
}
