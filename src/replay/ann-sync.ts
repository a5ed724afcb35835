import { rm } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import type { Provenance } from '../core/types.ts';
import { AnnIndex, type AnnOptions, annGraphId, InsertSlices } from './ann-index.ts';
import { FilterIndex } from './filter-index.ts';
import { vectorFromBytes } from './stored-bytes.ts';
import type { TransitionStore } from './transition-store.ts';

/**
 * Rowids looked at per query of an index catch-up (however few are of the class), and a slice's
 * time budget in ms: a catch-up inserts batches sized to take about that long (see
 * {@link InsertSlices}), with the event loop turning in between.
 */
const WINDOW_ROWS = 4096;
const SLICE_MS = 4;
/** A catch-up that has had no slice for this long (ms) is starved (see `helpFirstBuild`). */
const STARVED_MS = 20;
const MAX_BATCH = 2048;

/**
 * The provenance classes that get an ANN index each: real transitions (offline and online),
 * which experience models retrieve as demonstrations, and synthetic ones. Kept apart so that a
 * search for real demonstrations never wades through synthetic write-backs, which crowd real
 * neighbourhoods until a filtered search falls back to exact search, and so that a buffer nobody
 * asks for synthetic neighbours never spends time indexing them.
 */
export const ANN_CLASSES = {
  real: ['real-offline', 'real-online'],
  synthetic: ['synthetic'],
} as const satisfies Record<string, readonly Provenance[]>;

/** A provenance class with an ANN index of its own; see {@link ANN_CLASSES}. */
export type AnnClass = keyof typeof ANN_CLASSES;

/** The provenance class of a provenance. */
export function annClassOf(provenance: Provenance): AnnClass {
  return provenance === 'synthetic' ? 'synthetic' : 'real';
}

/** What the ANN index of one provenance class of a buffer is built for. */
export interface AnnSyncOptions {
  /**
   * The database's path; the index is saved beside it as `<path>.<class>.usearch` (not for
   * `:memory:`).
   */
  path: string;
  /** The provenance class indexed. */
  annClass: AnnClass;
  /**
   * Build the index at open once the buffer is past the threshold (true), or only once
   * {@link AnnSync.activate} is called — by the first search that wants it — or a saved index
   * exists (false).
   */
  eager: boolean;
  dimensions: number;
  /** Transitions in the buffer (all classes) above which the index is built. */
  threshold: number;
  ann: AnnOptions;
  /** Called when a catch-up has changed what retrieval can see. */
  onIndexed: () => void;
}

/**
 * Keeps the ANN index of one provenance class of a buffer (and the filter columns it is searched
 * with) in line with the database: built once the buffer crosses its threshold and the class is
 * active, loaded from `<path>.<class>.usearch` at open, grown after every add — this process's
 * and other processes' — in slices that leave the event loop free, and saved at close.
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
  /** The provenance class indexed. */
  readonly annClass: AnnClass;
  /** Whether the index is to be built (see {@link AnnSyncOptions.eager}). */
  private active: boolean;
  /** `provenance IN (…)` for this class. */
  private readonly inClass: string;
  /** How many transitions the next batch inserts. */
  private readonly slices = new InsertSlices(SLICE_MS);
  /** Transitions indexed since `onIndexed` was last called. */
  private unannounced = 0;
  /** When the last slice of a catch-up ran (performance.now()). */
  private lastSlice = 0;
  /** A first build under way, swapped in as `ann` once it holds every transition. */
  private building: { ann: AnnIndex; filters: FilterIndex; upTo: number } | undefined;

  constructor(
    private readonly store: TransitionStore,
    private readonly options: AnnSyncOptions,
  ) {
    this.annClass = options.annClass;
    this.active = options.eager;
    this.inClass = `provenance IN (${ANN_CLASSES[options.annClass].map((p) => `'${p}'`).join(', ')})`;
  }

  /**
   * Asks for the index of a lazy class: a catch-up (see {@link indexNewRows}) builds it from then
   * on. Returns whether it was inactive until now.
   */
  activate(): boolean {
    if (this.active) return false;
    this.active = true;
    return true;
  }

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
    if (upTo === 0 && !this.active) return; // a lazy class without a saved index waits
    this.active = true;
    if (upTo === 0) ann = new AnnIndex(this.options.dimensions, this.options.ann);
    const filters = FilterIndex.load(this.store.db);
    for (const ceiling = this.store.maxRowid(); upTo < ceiling; ) {
      upTo = this.indexSlice(ann, filters, upTo, ceiling).upTo;
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
    while (this.advance()) {
      await setImmediate();
    }
  }

  /**
   * Does a slice of a first build now if the background catch-up has not had a turn for
   * {@link STARVED_MS}: searches that come back to back without the event loop turning between
   * them (an in-process training loop's) would otherwise never see the build finish. A server's
   * event loop turns between requests, so its searches leave the build to the background and
   * cost nothing extra.
   */
  helpFirstBuild(): void {
    if (this.ann || performance.now() - this.lastSlice < STARVED_MS) return;
    this.advance();
  }

  /**
   * Does up to {@link SLICE_MS} of a catch-up (see {@link indexNewRows}) now; returns whether
   * work is left.
   */
  advance(): boolean {
    this.lastSlice = performance.now();
    if (!this.active || this.closing) return false;
    if (!this.ann && !this.building && this.store.maxRowid() <= this.options.threshold) {
      return false;
    }
    // A first build goes into a new index, swapped in when complete; a live one grows in place.
    const live = this.ann !== undefined;
    if (!live && !this.building) {
      this.building = {
        ann: new AnnIndex(this.options.dimensions, this.options.ann),
        filters: new FilterIndex(),
        upTo: 0,
      };
    }
    const target = live
      ? { ann: this.ann as AnnIndex, filters: this.filters as FilterIndex, upTo: this.upTo }
      : (this.building as NonNullable<typeof this.building>);
    const started = performance.now();
    const ceiling = this.store.maxRowid();
    while (target.upTo < ceiling && performance.now() - started < SLICE_MS) {
      const sliceStart = performance.now();
      const batch = this.slices.batch;
      const slice = this.indexSlice(target.ann, target.filters, target.upTo, ceiling, batch);
      target.upTo = slice.upTo;
      this.unannounced += slice.rows;
      if (live) this.upTo = target.upTo;
      if (slice.rows === batch) this.slices.took(performance.now() - sliceStart);
    }
    const left = target.upTo < ceiling;
    if (!live && !left) {
      this.ann = target.ann;
      this.filters = target.filters;
      this.upTo = target.upTo;
      this.building = undefined;
    }
    // Told once a catch-up is complete, not after every slice: retrieval's remembered answers
    // stand while another process's import is indexed (the memo of a GRPO group's repeated
    // searches would otherwise be cleared at every turn of the event loop).
    if (!left && (!live || this.unannounced > 0)) {
      this.unannounced = 0;
      this.options.onIndexed();
    }
    return left;
  }

  /**
   * Adds this class's transitions among the rowids after `from` (up to `ceiling`, at most
   * {@link WINDOW_ROWS} of them, at most `batch` added) to `ann` and `filters`;
   * returns how many it added and the rowid it got to. The rowids come from the transitions
   * table's B-tree and each vector by its rowid: sqlite-vec answers a rowid range (or IN list)
   * on its vec0 table with a scan of the whole table (16 ms at 60k transitions, per query),
   * a single rowid in ≈ 30 µs.
   */
  private indexSlice(
    ann: AnnIndex,
    filters: FilterIndex,
    from: number,
    ceiling: number,
    batch = MAX_BATCH,
  ): { rows: number; upTo: number } {
    const end = Math.min(from + WINDOW_ROWS, ceiling);
    const ids = this.store
      .sql(
        `SELECT rowid FROM transitions WHERE rowid > ? AND rowid <= ? AND ${this.inClass}
         ORDER BY rowid LIMIT ?`,
      )
      .pluck()
      .all(from, end, batch) as number[];
    const vector = this.store
      .sql(
        'SELECT embedding, env, provenance, success, trajectory FROM transition_vectors WHERE rowid = ?',
      )
      .raw();
    const vectors: Float32Array[] = [];
    for (const rowid of ids) {
      const [blob, env, provenance, success, trajectory] = vector.get(BigInt(rowid)) as [
        Buffer,
        string,
        Provenance,
        number,
        number,
      ];
      vectors.push(vectorFromBytes(blob));
      filters.addTrajectory(Number(trajectory), env, provenance, Number(success) === 1);
      filters.addTransition(rowid, Number(trajectory));
    }
    ann.add(ids, vectors);
    return { rows: ids.length, upTo: ids.length === batch ? (ids.at(-1) as number) : end };
  }

  /**
   * Loads the index saved beside the database if it is this database's: it must hold exactly the
   * transitions up to the rowid recorded when it was saved, and have been built with these
   * settings (quantization, degree, efConstruction). Returns that rowid, or 0 when there is no
   * usable file (none, another database's or settings', unreadable): the index is then rebuilt.
   * Transitions added after the save (say the process died before `close()`) are added on top.
   */
  private loadSaved(ann: AnnIndex): number {
    const saved = Number(this.store.getMeta(this.savedKey()) ?? 0);
    if (this.options.path === ':memory:' || saved === 0) return 0;
    // Indexes saved before the settings were recorded were built with the defaults.
    const graph = this.store.getMeta(this.graphKey()) ?? annGraphId(this.options.dimensions, {});
    if (graph !== annGraphId(this.options.dimensions, this.options.ann)) return 0;
    try {
      if (!ann.load(this.file())) return 0;
    } catch {
      return 0;
    }
    const expected = this.store.db
      .prepare(`SELECT COUNT(*) FROM transitions WHERE rowid <= ? AND ${this.inClass}`)
      .pluck()
      .get(saved);
    return ann.size === expected ? saved : 0;
  }

  /** Stops a running catch-up at its next slice and waits for it. */
  async stop(): Promise<void> {
    this.closing = true;
    await this.chain;
  }

  /**
   * Saves the index beside the database with the rowid it holds up to (nothing in memory), and
   * removes the single index of all provenances that buffers written before the split kept.
   */
  async save(): Promise<void> {
    if (!this.ann || this.options.path === ':memory:') return;
    await this.ann.save(this.file());
    this.store.setMeta(this.savedKey(), String(this.upTo));
    this.store.setMeta(this.graphKey(), annGraphId(this.options.dimensions, this.options.ann));
    await rm(`${this.options.path}.usearch`, { force: true });
  }

  private file(): string {
    return `${this.options.path}.${this.options.annClass}.usearch`;
  }

  private savedKey(): string {
    return `ann_${this.options.annClass}_saved_rowid`;
  }

  private graphKey(): string {
    return `ann_${this.options.annClass}_graph`;
  }
}
