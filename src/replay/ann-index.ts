import { existsSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { createRequire } from 'node:module';
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
}

/**
 * An approximate nearest-neighbour index (usearch's HNSW, cosine distance) over transition
 * vectors, keyed by transition rowid. It holds vectors only; the replay buffer filters results
 * against the database and decides when the index is stale.
 */
export class AnnIndex {
  private readonly index: Index;

  constructor(
    readonly dimensions: number,
    options: AnnOptions = {},
  ) {
    this.index = new usearch.Index({
      dimensions,
      metric: usearch.MetricKind.Cos,
      quantization: usearch.ScalarKind.F32,
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
   * Adds vectors on one thread: usearch's multi-threaded insertion occasionally left an exact
   * duplicate of a stored vector unfindable in small indexes, and its graph depends on thread
   * timing; one thread gives the same index for the same data, every time.
   */
  add(keys: readonly number[], vectors: readonly Float32Array[]): void {
    if (keys.length === 0) return;
    this.index.add(BigUint64Array.from(keys, BigInt), vectors as Float32Array[], 1);
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

  /** Writes the index atomically (to a temporary file, then renamed over `path`). */
  async save(path: string): Promise<void> {
    const partial = `${path}.partial`;
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
