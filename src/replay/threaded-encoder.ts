import { setImmediate } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { HashingEmbedder, type HashingEmbedderOptions } from '../embed/hashing-embedder.ts';
import type { EncoderReply, EncoderRequest, EncoderWorkerData } from './encoder-worker.ts';
import {
  DEFAULT_WEIGHTS,
  type EncoderWeights,
  type KeyEncoder,
  TransitionEncoder,
  type TransitionKey,
} from './transition-encoder.ts';

/** How long close() waits for the worker to stop before leaving it to the process's exit. */
const CLOSE_TIMEOUT_MS = 5000;

/** The threaded encoder's hashing embedder, weights and the batch size that goes to the worker. */
export interface ThreadedEncoderOptions {
  /** The hashing embedder of each part. Default: 128 dimensions (384 for the whole key). */
  hashing?: HashingEmbedderOptions;
  weights?: EncoderWeights;
  /** Batches with fewer keys are encoded on the calling thread. Default 256. */
  minWorkerBatch?: number;
}

/**
 * The default transition encoder: a hashing `TransitionEncoder` that encodes big batches on
 * a worker thread, so that a bulk `ReplayBuffer.add` embeds its next chunk while the main thread
 * writes the current one to SQLite. Vectors and id are exactly those of the same encoder on the
 * main thread (same code, same options). Small batches — retrieval queries — stay on the calling
 * thread: a round trip to the worker costs more than embedding a few keys. The worker starts on
 * the first big batch and does not keep the process alive while idle.
 */
export class ThreadedTransitionEncoder implements KeyEncoder {
  readonly id: string;
  readonly dimensions: number;
  private readonly inline: TransitionEncoder;
  private readonly data: EncoderWorkerData;
  private readonly minWorkerBatch: number;
  private worker: Worker | undefined;
  private readonly pending = new Map<
    number,
    {
      keys: readonly TransitionKey[];
      resolve: (v: Float32Array[]) => void;
      reject: (e: Error) => void;
    }
  >();
  private nextId = 0;
  private ready = false;
  /** Called, then forgotten, when the worker says 'ready' or goes away. */
  private wakers: Array<() => void> = [];
  /** Set when a worker died: from then on everything is encoded on the calling thread. */
  private broken: Error | undefined;

  constructor(options: ThreadedEncoderOptions = {}) {
    this.data = {
      hashing: options.hashing ?? { dimensions: 128 },
      weights: options.weights ?? DEFAULT_WEIGHTS,
    };
    this.inline = new TransitionEncoder(new HashingEmbedder(this.data.hashing), this.data.weights);
    this.id = this.inline.id;
    this.dimensions = this.inline.dimensions;
    this.minWorkerBatch = options.minWorkerBatch ?? 256;
  }

  async encode(keys: readonly TransitionKey[]): Promise<Float32Array[]> {
    if (keys.length < this.minWorkerBatch || this.broken) return this.inline.encode(keys);
    const worker = this.start();
    if (!this.ready) {
      // The worker takes a few hundred milliseconds to load; the calling thread works meanwhile,
      // letting the event loop turn first so that the worker's 'ready' is heard once it comes.
      await setImmediate();
      if (!this.ready) return this.inline.encode(keys);
    }
    const id = this.nextId++;
    // Only the texts cross the thread boundary, as one flat array (cheap to clone).
    const texts: string[] = [];
    for (const k of keys) texts.push(k.state.text, k.action, k.task.instruction);
    const request: EncoderRequest = { id, texts };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { keys, resolve, reject });
      worker.ref();
      worker.postMessage(request);
    });
  }

  /** Whether big batches now go to the worker (it has started and loaded). */
  get workerReady(): boolean {
    return this.ready;
  }

  /**
   * Starts the worker now and resolves when it is ready, or has failed (then batches are encoded
   * on the calling thread); without this it starts on first use.
   */
  async warm(): Promise<void> {
    if (this.broken) return;
    const worker = this.start();
    // Waits through the worker's own listeners: a 'message' listener added to an unref'd
    // worker refs it again, and the process would then outlive its work (issue 22, item 2).
    if (this.ready) return;
    worker.ref(); // an awaited warm() keeps the process up until the worker answers
    while (!this.ready && this.worker === worker) {
      await new Promise<void>((resolve) => this.wakers.push(resolve));
    }
    if (this.pending.size === 0) worker.unref();
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.ready = false;
    this.rescue();
    if (!worker) return;
    // Ref'd while it stops: an unref'd worker's exit would not keep the process up, and a caller
    // awaiting close() at the end of a program would be cut off (exit code 13). The wait is
    // bounded by a (ref'd) timer: a worker stuck while loading once never answered terminate(),
    // and a demo ended with exit code 13 and no table. The worker holds no data of ours.
    worker.ref();
    let timer: NodeJS.Timeout | undefined;
    const stopped = await Promise.race([
      worker.terminate().then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), CLOSE_TIMEOUT_MS);
      }),
    ]);
    clearTimeout(timer);
    if (!stopped) worker.unref();
  }

  /** Encodes the batches still waiting for the worker on this thread instead. */
  private rescue(): void {
    const jobs = [...this.pending.values()];
    this.pending.clear();
    for (const job of jobs) this.inline.encode(job.keys).then(job.resolve, job.reject);
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./encoder-worker.js', import.meta.url), {
      workerData: this.data,
    });
    worker.on('message', (reply: EncoderReply | 'ready') => {
      if (reply === 'ready') {
        this.ready = this.worker === worker;
        this.wake();
      } else this.settle(reply);
    });
    // A worker that dies costs speed, not data: its batches are encoded here instead.
    const fail = (error: Error) => {
      if (this.worker !== worker) return; // closed on purpose
      this.worker = undefined;
      this.ready = false;
      this.broken = error;
      process.emitWarning(
        `${error.message}; encoding transitions on the main thread from now on.`,
        'DreamGymWarning',
      );
      this.rescue();
    };
    worker.on('error', (error) =>
      fail(new Error(`the transition encoder worker failed: ${error.message}`, { cause: error })),
    );
    worker.on('exit', (code) => {
      this.wake();
      fail(new Error(`the transition encoder worker exited (code ${code})`));
    });
    // After the listeners: adding a 'message' listener refs a worker again.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private wake(): void {
    const wakers = this.wakers;
    this.wakers = [];
    for (const wake of wakers) wake();
  }

  private settle(reply: EncoderReply): void {
    const job = this.pending.get(reply.id);
    if (!job) return;
    this.pending.delete(reply.id);
    if (this.pending.size === 0) this.worker?.unref();
    if ('error' in reply) {
      // The same code runs here: this gives the caller the error with its own stack.
      this.inline.encode(job.keys).then(job.resolve, job.reject);
      return;
    }
    const d = this.dimensions;
    job.resolve(
      Array.from({ length: job.keys.length }, (_, i) => reply.vectors.subarray(i * d, (i + 1) * d)),
    );
  }
}
