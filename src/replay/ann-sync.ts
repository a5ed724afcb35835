import { setImmediate } from 'node:timers/promises';
import type { Provenance } from '../core/types.ts';
import { AnnIndex, type AnnOptions } from './ann-index.ts';
import { FilterIndex } from './filter-index.ts';
import type { TransitionStore } from './transition-store.ts';

/** Transitions read per query of an index catch-up, and a slice's time budget in ms. */
const SLICE_ROWS = 16;
const SLICE_MS = 4;

/** What the ANN index of a buffer is built for. */
export interface AnnSyncOptions {
  /** The database's path; the index is saved beside it as `<path>.usearch` (not for `:memory:`). */
  path: string;
  dimensions: number;
  /** Transitions above which the index is built. */
  threshold: number;
  ann: AnnOptions;
  /** Called when a catch-up has changed what retrieval can see. */
  onIndexed: () => void;
}

/**
 * Keeps a buffer's ANN index (and the filter columns it is searched with) in line with the
 * database: built once the buffer crosses its threshold, loaded from `<path>.usearch` at open,
 * grown after every add — this process's and other processes' — in slices that leave the event
 * loop free, and saved at close.
 */
export class AnnSync {
  /** The index retrieval uses; undefined below the threshold (exact search then). */
  ann: AnnIndex | undefined;
  /** Filter columns in memory, kept while the ANN index is in use. */
  filters: FilterIndex | undefined;
  /** The index holds every transition up to this rowid. */
  upTo = 0;
  /** Settles when the catch-ups started so far have finished; they run one at a time. */
  private chain: Promise<void> = Promise.resolve();
  /** Set by `stop()`: a running catch-up stops at its next slice. */
  private closing = false;

  constructor(
    private readonly store: TransitionStore,
    private readonly options: AnnSyncOptions,
  ) {}

  /**
   * Brings the ANN index in line with the database at open, in one go (nothing is served yet):
   * once there are more than `annThreshold` transitions, loads the saved index and adds what it
   * lacks (transitions added while it was not saved, e.g. after a crash), or builds it from
   * scratch when the file is missing.
   */
  syncAtOpen(): void {
    if (this.store.maxRowid() <= this.options.threshold) return;
    let ann = new AnnIndex(this.options.dimensions, this.options.ann);
    let upTo = this.loadSaved(ann);
    if (upTo === 0) ann = new AnnIndex(this.options.dimensions, this.options.ann);
    const filters = FilterIndex.load(this.store.db);
    for (let slice = this.indexSlice(ann, filters, upTo, 10_000); slice.rows > 0; ) {
      upTo = slice.upTo;
      slice = this.indexSlice(ann, filters, upTo, 10_000);
    }
    this.ann = ann;
    this.filters = filters;
    this.upTo = upTo;
  }

  /**
   * Adds the transitions committed since the index was last brought up to date — this process's
   * and other processes' alike — to the ANN index and the filter columns, or builds the index
   * once the database has crossed `annThreshold`. Works in slices of a few milliseconds with the
   * event loop turning in between, so a server keeps answering while another process's bulk
   * import is being indexed (issue 22): meanwhile retrieval uses the index as it is, or exact
   * search until a first build is complete. Catch-ups run one at a time.
   */
  indexNewRows(): Promise<void> {
    const run = this.chain.then(() => this.catchUp());
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async catchUp(): Promise<void> {
    if (this.closing || (!this.ann && this.store.maxRowid() <= this.options.threshold)) return;
    // A first build goes into a new index, swapped in when complete; a live one grows in place.
    const ann = this.ann ?? new AnnIndex(this.options.dimensions, this.options.ann);
    const filters = (this.ann && this.filters) || new FilterIndex();
    let upTo = this.ann ? this.upTo : 0;
    for (;;) {
      const started = performance.now();
      let slice: { rows: number; upTo: number };
      do {
        slice = this.indexSlice(ann, filters, upTo, SLICE_ROWS);
        upTo = slice.upTo;
        if (ann === this.ann) this.upTo = upTo;
      } while (slice.rows === SLICE_ROWS && performance.now() - started < SLICE_MS);
      if (slice.rows < SLICE_ROWS) break;
      await setImmediate();
      if (this.closing) return; // a first build is dropped; a live index keeps what it has
    }
    this.ann = ann;
    this.filters = filters;
    this.upTo = upTo;
    this.options.onIndexed();
  }

  /** Adds up to `limit` transitions after rowid `from` to `ann` and `filters`. */
  private indexSlice(
    ann: AnnIndex,
    filters: FilterIndex,
    from: number,
    limit: number,
  ): { rows: number; upTo: number } {
    const rows = this.store
      .sql(
        `SELECT rowid, embedding, env, provenance, success, trajectory FROM transition_vectors
       WHERE rowid > ? ORDER BY rowid LIMIT ?`,
      )
      .raw()
      .all(BigInt(from), limit) as Array<[number, Buffer, string, Provenance, number, number]>;
    if (rows.length === 0) return { rows: 0, upTo: from };
    const keys: number[] = [];
    const vectors: Float32Array[] = [];
    for (const [rowid, blob, env, provenance, success, trajectory] of rows) {
      keys.push(Number(rowid));
      vectors.push(
        new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength)),
      );
      filters.addTrajectory(Number(trajectory), env, provenance, Number(success) === 1);
      filters.addTransition(Number(rowid), Number(trajectory));
    }
    ann.add(keys, vectors);
    return { rows: rows.length, upTo: keys.at(-1) as number };
  }

  /**
   * Loads the index saved beside the database if it is this database's: it must hold exactly the
   * transitions up to the rowid recorded when it was saved. Returns that rowid, or 0 when there is
   * no usable file (none, another database's, unreadable), in which case the index is rebuilt.
   * Transitions added after the save (say the process died before `close()`) are added on top.
   */
  private loadSaved(ann: AnnIndex): number {
    const saved = Number(this.store.getMeta('ann_saved_rowid') ?? 0);
    if (this.options.path === ':memory:' || saved === 0) return 0;
    try {
      if (!ann.load(annPath(this.options.path))) return 0;
    } catch {
      return 0;
    }
    const expected = this.store.db
      .prepare('SELECT COUNT(*) FROM transitions WHERE rowid <= ?')
      .pluck()
      .get(saved);
    return ann.size === expected ? saved : 0;
  }

  /** The filter columns, loaded from the database on first use. */
  filterIndex(): FilterIndex {
    this.filters ??= FilterIndex.load(this.store.db);
    return this.filters;
  }

  /** Stops a running catch-up at its next slice and waits for it. */
  async stop(): Promise<void> {
    this.closing = true;
    await this.chain;
  }

  /** Saves the index beside the database with the rowid it holds up to (nothing in memory). */
  async save(): Promise<void> {
    if (!this.ann || this.options.path === ':memory:') return;
    await this.ann.save(annPath(this.options.path));
    this.store.setMeta('ann_saved_rowid', String(this.upTo));
  }
}

function annPath(path: string): string {
  return `${path}.usearch`;
}
