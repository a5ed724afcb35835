import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { setImmediate } from 'node:timers/promises';
import type { Index } from 'usearch';

// usearch's ESM build finds its native addon by walking up from the caller's stack frame, which
// under plain Node's ESM is a file:// URL it cannot walk: importing it recurses until the stack
// overflows (usearch 2.25.3; tsx happens to hide this). Its CommonJS build finds the addon by
// __dirname and loads everywhere.
const usearch = createRequire(import.meta.url)('usearch') as typeof import('usearch').default;

/** HNSW settings of the approximate nearest-neighbour index. */
export interface AnnOptions {
  /** HNSW graph degree (M). Default 16. */
  connectivity?: number;
  /** Candidate list size while inserting (efConstruction). Default 128. */
  expansionAdd?: number;
  /**
   * Candidate list size while searching (ef; at least the number of results asked for).
   * Default 64: recall@8 0.999 at 100k webshop transitions, ≈ 0.4 ms (`npm run bench -- replay`).
   */
  expansionSearch?: number;
  /**
   * How vectors are stored and compared: `f32`, `f16` (half the memory; inserts ≈ 1.6× faster
   * at the same recall@8, 0.989, in one measurement at 60k webshop transitions with efConstruction
   * 64 on one thread) or `i8` (a quarter; faster still, recall@8 0.94 there). Default `f32`. A
   * saved index of another quantization is rebuilt at open.
   */
  quantization?: 'f32' | 'f16' | 'i8';
  /**
   * Threads that insert a batch at once. Default 1: the graph, and so what retrieval returns,
   * then depends on the data alone, every run. More threads insert faster (≈ 2× with 2 on an idle
   * 2-core machine) but the graph depends on thread timing, and recall may drop: f16 on 2 threads
   * with efConstruction 64 gave recall@8 0.947 at 107k (`npm run bench -- replay`).
   */
  threads?: number;
}

const SCALARS = {
  f32: usearch.ScalarKind.F32,
  f16: usearch.ScalarKind.F16,
  i8: usearch.ScalarKind.I8,
};

/**
 * Sizes batches of index inserts to take about `sliceMs` each (16 to start with, then as many as
 * the last full batch's speed says fit, at most doubling), so that indexing can give the event
 * loop a turn between batches.
 */
export class InsertSlices {
  /** Transitions the next batch inserts. */
  batch = 16;

  constructor(readonly sliceMs = 4) {}

  /** Takes the time a full batch took. */
  took(ms: number): void {
    const fit = Math.floor((this.batch * this.sliceMs) / Math.max(ms, 0.01));
    this.batch = Math.max(16, Math.min(2048, fit, this.batch * 2));
  }
}

/** The settings that shape an index's graph: a saved index built with others is rebuilt. */
export function annGraphId(dimensions: number, options: AnnOptions): string {
  return [
    dimensions,
    options.quantization ?? 'f32',
    options.connectivity ?? 16,
    options.expansionAdd ?? 128,
  ].join(':');
}

/**
 * An approximate nearest-neighbour index (usearch's HNSW, cosine distance) over transition
 * vectors, keyed by transition rowid. It holds vectors only; the replay buffer filters results
 * against the database and decides when the index is stale.
 */
export class AnnIndex {
  private readonly index: Index;
  private readonly threads: number;

  constructor(
    readonly dimensions: number,
    options: AnnOptions = {},
  ) {
    const quantization = options.quantization ?? 'f32';
    if (!(quantization in SCALARS)) {
      throw new RangeError(
        `ann.quantization must be f32, f16 or i8, not ${JSON.stringify(quantization)}.`,
      );
    }
    this.threads = options.threads ?? 1;
    if (!Number.isInteger(this.threads) || this.threads < 1) {
      throw new RangeError(`ann.threads must be a whole number ≥ 1, not ${options.threads}.`);
    }
    this.index = new usearch.Index({
      dimensions,
      metric: usearch.MetricKind.Cos,
      quantization: SCALARS[quantization],
      connectivity: options.connectivity ?? 16,
      expansion_add: options.expansionAdd ?? 128,
      expansion_search: options.expansionSearch ?? 64,
      multi: false,
    });
  }

  get size(): number {
    return this.index.size();
  }

  /**
   * Adds vectors, on one thread unless `threads` says otherwise: one thread gives the same index
   * for the same data, every time (usearch's multi-threaded insertion makes the graph depend on
   * thread timing). Batches too small to share out go in on one thread.
   */
  add(keys: readonly number[], vectors: readonly Float32Array[]): void {
    if (keys.length === 0) return;
    const threads = keys.length >= 4 * this.threads ? this.threads : 1;
    this.index.add(BigUint64Array.from(keys, BigInt), vectors as Float32Array[], threads);
  }

  /**
   * Adds vectors in batches sized by `slices`, letting the event loop turn between them, so
   * that indexing thousands of transitions never blocks a server for long.
   */
  async addInSlices(
    keys: readonly number[],
    vectors: readonly Float32Array[],
    slices: InsertSlices,
  ): Promise<void> {
    for (let i = 0; i < keys.length; ) {
      const n = slices.batch;
      const started = performance.now();
      this.add(keys.slice(i, i + n), vectors.slice(i, i + n));
      if (i + n <= keys.length) slices.took(performance.now() - started);
      i += n;
      if (i < keys.length) await setImmediate();
    }
  }

  /** The `k` nearest keys with their cosine distances, nearest first. */
  search(vector: Float32Array, k: number): Array<{ key: number; distance: number }> {
    const count = Math.min(k, this.size);
    if (count === 0) return [];
    const matches = this.index.search(vector, count, 0);
    const out: Array<{ key: number; distance: number }> = [];
    for (let i = 0; i < matches.keys.length; i++) {
      out.push({ key: Number(matches.keys[i]), distance: matches.distances[i] as number });
    }
    return out;
  }

  /**
   * Writes the index atomically (to a temporary file, then renamed over `path`). The temporary
   * file is this process's own: processes sharing a buffer (`serve --workers`) save at close, and
   * the last rename wins.
   */
  async save(path: string): Promise<void> {
    const partial = `${path}.${process.pid}.partial`;
    this.index.save(partial);
    await rename(partial, path);
  }

  /** Loads a saved index into this one; false when there is no file. */
  load(path: string): boolean {
    if (!existsSync(path)) return false;
    this.index.load(path);
    return true;
  }
}
