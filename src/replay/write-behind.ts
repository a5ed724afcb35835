import type { Trajectory } from '../core/types.ts';
import type { ReplayBuffer } from './replay-buffer.ts';

/** Episodes a server may have answered but not yet stored, by default (see `maxUnwritten`). */
export const DEFAULT_MAX_UNWRITTEN = 500;

/** Longest wait between two tries of a failed write, in ms. */
const MAX_RETRY_MS = 30_000;

export interface WriteBehindOptions {
  /**
   * Episodes whose `push` has resolved while they are not yet written, at most: what a crash of
   * the process can lose. Past it, `push` resolves only once enough are written (back-pressure:
   * the step that ended the episode is answered later); nothing is dropped. 0 makes every
   * `push` wait for its own write (a server's `--durable`).
   * @default 500
   */
  maxUnwritten?: number;
  /** Where failed writes and back-pressure are reported. */
  warn: (message: string) => void;
}

/** A trajectory waiting to be written, and what its `push` waits for, if it still waits. */
interface Waiting {
  trajectory: Trajectory;
  release: (() => void) | undefined;
}

/**
 * Adds trajectories to a replay buffer in the background, in batches: whatever was pushed while
 * the previous add ran goes in as the next add (one transaction, so a busy buffer takes more per
 * add). For servers: the step that ends an episode need not wait for the buffer's write, which
 * another process's bulk import can hold for minutes (issue 22) — but only up to `maxUnwritten`
 * episodes; past it, pushes wait (issue 58: dropping them lost two thirds of a load test's
 * episodes). A failed add is tried again, with growing pauses, until it succeeds or `close()`
 * gives up on it (saying how many episodes were lost).
 */
export class WriteBehind {
  private queue: Waiting[] = [];
  /** Trajectories whose push resolved and which are not written yet. */
  private unwritten = 0;
  /** Pushes that have not resolved yet. */
  private blocked = 0;
  /** Trajectories in the add under way. */
  private writing = 0;
  private running: Promise<void> | undefined;
  /** Ends a retry pause early (at close). */
  private wake: (() => void) | undefined;
  private closed = false;
  private retryMs = 0;
  /** When back-pressure began, while it lasts. */
  private pressureSince: number | undefined;
  private readonly maxUnwritten: number;

  constructor(
    private readonly buffer: Pick<ReplayBuffer, 'add' | 'path'>,
    private readonly options: WriteBehindOptions,
  ) {
    this.maxUnwritten = options.maxUnwritten ?? DEFAULT_MAX_UNWRITTEN;
    if (!(Number.isInteger(this.maxUnwritten) && this.maxUnwritten >= 0)) {
      throw new RangeError(
        `maxUnwritten is a whole number of episodes (0: every push waits for its write), got ${options.maxUnwritten}.`,
      );
    }
  }

  /** Trajectories pushed and not yet written. */
  get pending(): number {
    return this.queue.length + this.writing;
  }

  /** Pushes waiting for the buffer now (back-pressure, or every push with `maxUnwritten` 0). */
  get waiting(): number {
    return this.blocked;
  }

  /**
   * Queues `trajectory` for the buffer. Resolves at once while fewer than `maxUnwritten` pushed
   * episodes are unwritten, else once this one is written or enough others are. Never rejects:
   * a write that fails is tried again, and reported.
   */
  push(trajectory: Trajectory): Promise<void> {
    if (this.closed) {
      this.options.warn(`episode ${trajectory.id} ended after the buffer was closed; not stored.`);
      return Promise.resolve();
    }
    this.running ??= this.drain();
    if (this.unwritten < this.maxUnwritten && this.blocked === 0) {
      this.unwritten++;
      this.queue.push({ trajectory, release: undefined });
      return Promise.resolve();
    }
    if (this.maxUnwritten > 0 && this.pressureSince === undefined) {
      this.pressureSince = Date.now();
      this.options.warn(
        `${this.unwritten} finished episodes are waiting to be written to ${this.buffer.path}: the steps that end episodes now wait for the buffer (back-pressure) until it catches up.`,
      );
    }
    this.blocked++;
    return new Promise((resolve) => this.queue.push({ trajectory, release: resolve }));
  }

  /** Resolves when everything pushed so far has been written (or given up at close). */
  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  /** Writes what is waiting (one more try for a failing write), then refuses further pushes. */
  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.flush();
  }

  private async drain(): Promise<void> {
    await Promise.resolve(); // pushes of the same turn go in one batch
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      this.writing = batch.length;
      const stored = await this.write(batch.map((w) => w.trajectory));
      this.writing = 0;
      if (!stored) {
        this.options.warn(
          `${batch.length} episodes could not be stored in ${this.buffer.path} before it closed; they are lost.`,
        );
      }
      for (const w of batch) {
        if (!w.release) this.unwritten--;
        else {
          this.blocked--;
          w.release();
        }
      }
      this.admit();
    }
    this.running = undefined;
  }

  /** Lets waiting pushes resolve, oldest first, while the unwritten ones are under the bound. */
  private admit(): void {
    for (const w of this.queue) {
      if (!w.release || this.unwritten >= this.maxUnwritten) continue;
      const release = w.release;
      w.release = undefined;
      this.blocked--;
      this.unwritten++;
      release();
    }
    if (this.pressureSince !== undefined && this.blocked === 0) {
      const seconds = ((Date.now() - this.pressureSince) / 1000).toFixed(1);
      this.options.warn(`${this.buffer.path} caught up after ${seconds} s of back-pressure.`);
      this.pressureSince = undefined;
    }
  }

  /** Adds `batch`, trying again after a pause while it fails; false if given up at close. */
  private async write(batch: Trajectory[]): Promise<boolean> {
    for (;;) {
      try {
        // Nothing here reads the episodes back: the add need not wait for the search index.
        await this.buffer.add(batch, { waitForIndex: false });
        this.retryMs = 0;
        return true;
      } catch (error) {
        if (this.closed) return false;
        this.retryMs = Math.min(Math.max(this.retryMs * 2, 500), MAX_RETRY_MS);
        this.options.warn(
          `could not store ${batch.length} episodes in ${this.buffer.path} (${(error as Error).message}); trying again in ${this.retryMs / 1000} s.`,
        );
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.retryMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = undefined;
      }
    }
  }
}
