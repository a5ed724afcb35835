import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { type Provenance, type Trajectory, transitions } from '../core/types.ts';
import type { AnnIndex, AnnOptions } from './ann-index.ts';
import { admittedClasses, annSearch } from './ann-search.ts';
import { type AnnClass, AnnSync, annClassOf } from './ann-sync.ts';
import { setTeacherReasoning } from './annotations.ts';
import {
  BufferLocationError,
  BufferLockedError,
  BufferNotFoundError,
  checkBufferLocation,
  VectorExtensionMissingError,
} from './buffer-errors.ts';
import { type BufferStats, bufferStats } from './buffer-stats.ts';
import { exactRetrieve } from './exact-retrieval.ts';
import type { FilterIndex, RetrieveFilter } from './filter-index.ts';
import type { AddResult, ReplayBuffer, TrajectoryFilter } from './replay-buffer.ts';
import { type SampleOptions, TransitionSampler } from './sampling.ts';
import { BufferSchemaError, migrate } from './schema.ts';
import type { RetrievedTransition, StoredTransition } from './stored-transition.ts';
import { ThreadedTransitionEncoder } from './threaded-encoder.ts';
import {
  storedTrajectories,
  storedTrajectoryIds,
  storedTrajectoryTransitions,
} from './trajectory-rebuild.ts';
import type { KeyEncoder, TransitionKey } from './transition-encoder.ts';
import { TransitionStore } from './transition-store.ts';

/** Where a buffer lives and how it embeds, indexes and locks. */
export interface SqliteBufferOptions {
  /** Database file; `:memory:` (the default) for a throw-away buffer. */
  path?: string;
  /**
   * Create the database (and its folder) when missing. Default true; false for readers, which
   * then fail with a {@link BufferNotFoundError} and leave nothing behind.
   */
  create?: boolean;
  /**
   * How long an add waits for another process's write (a bulk import holds the lock for all of
   * it) before failing with a {@link BufferLockedError}. The wait never blocks the event loop.
   * Default 10 minutes.
   */
  lockTimeoutMs?: number;
  /** Told once per add that ends up waiting over a second for another process's write. */
  onLockWait?: (message: string) => void;
  /**
   * How transitions are embedded for retrieval. Default: hashing embedder, 3 × 128 dimensions,
   * big batches on a worker thread ({@link ThreadedTransitionEncoder}).
   */
  encoder?: KeyEncoder;
  /**
   * A bulk `add` is written in chunks of about this many transitions, the next chunk embedded
   * while the current one is written (still one transaction). Default 1,024.
   */
  chunkSize?: number;
  /** Transitions above which retrieval uses the ANN index instead of exact search. Default 50,000. */
  annThreshold?: number;
  /**
   * Answers of `retrieve` remembered until an add could change them (0 turns the memo off): an
   * add of synthetic transitions only forgets the answers of searches that admit synthetic ones.
   * Default 10,000 of each kind.
   */
  memoSize?: number;
  ann?: AnnOptions & {
    /**
     * A filtered ANN search fetches 2 candidates per wanted result, then this many if too few
     * pass the filter, then falls back to exact search. Default 16.
     */
    overfetch?: number;
  };
}

/**
 * How long SQLite itself waits for a lock, in ms. Adds never use it (they wait asynchronously,
 * see `beginWrite`); the rare other writes (metadata, teacher reasoning) do.
 */
const BUSY_TIMEOUT_MS = 5000;

/**
 * The replay buffer: trajectories with provenance in SQLite (WAL), every transition embedded for
 * similarity retrieval. Retrieval is exact (sqlite-vec) up to `annThreshold` transitions and
 * approximate beyond: HNSW indexes of real and of synthetic transitions, persisted beside the
 * database as `<path>.real.usearch` and `<path>.synthetic.usearch` (see `ANN_CLASSES`), their
 * candidates filtered in memory (`FilterIndex`). Writes run one at a time, each one transaction; bulk
 * writes embed on a worker thread ({@link ThreadedTransitionEncoder}) while writing.
 */
export class SqliteReplayBuffer implements ReplayBuffer {
  readonly path: string;
  readonly encoder: KeyEncoder;
  private readonly db: Database.Database;
  private readonly store: TransitionStore;
  /** One ANN index per provenance class: real built at open, synthetic when first asked for. */
  private readonly annSyncs: Record<AnnClass, AnnSync>;
  private readonly sampler: TransitionSampler;
  private readonly overfetch: number;
  private readonly memoSize: number;
  private readonly chunkSize: number;
  private readonly ownsEncoder: boolean;
  private readonly lockTimeoutMs: number;
  private readonly onLockWait: ((message: string) => void) | undefined;
  private closed = false;
  /** Settles when every `add` called so far has finished; adds run one at a time. */
  private writes: Promise<unknown> = Promise.resolve();
  /** Set while a bulk add holds a transaction open across awaits (see {@link add}). */
  private bulkAdd: Promise<unknown> | undefined;
  /**
   * Remembered answers of `retrieve`, by the provenance classes their filter admits: an add of
   * synthetic transitions leaves the answers of searches for real demonstrations standing.
   */
  private readonly retrievals: Record<'real' | 'any', Map<string, RetrievedTransition[]>> = {
    real: new Map(),
    any: new Map(),
  };
  /** The transitions up to this rowid have been seen by the memo (see {@link noteNewRows}). */
  private seenRowid = 0;

  private constructor(options: SqliteBufferOptions) {
    this.path = options.path ?? ':memory:';
    this.encoder = options.encoder ?? new ThreadedTransitionEncoder();
    this.ownsEncoder = options.encoder === undefined;
    this.chunkSize = options.chunkSize ?? 1024;
    this.overfetch = options.ann?.overfetch ?? 16;
    this.memoSize = options.memoSize ?? 10_000;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 600_000;
    this.onLockWait = options.onLockWait;
    const create = options.create ?? true;
    checkBufferLocation(this.path);
    if (this.path !== ':memory:') {
      if (existsSync(this.path) && statSync(this.path).isDirectory()) {
        throw new BufferLocationError(
          `${this.path} is a directory; pass a database file, e.g. ${join(this.path, 'buffer.db')}.`,
        );
      }
      if (!create && !existsSync(this.path)) throw new BufferNotFoundError(this.path);
      mkdirSync(dirname(this.path), { recursive: true });
    }
    this.db = new Database(this.path, { timeout: BUSY_TIMEOUT_MS });
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('foreign_keys = ON');
      this.db.pragma('cache_size = -65536');
      loadVectorExtension(this.db);
      migrate(this.db, this.encoder.dimensions, this.path);
      this.store = new TransitionStore(this.db);
      this.checkEncoder();
    } catch (error) {
      this.db.close();
      if ((error as { code?: string }).code === 'SQLITE_NOTADB') {
        throw new BufferLocationError(
          `${this.path} is not a SQLite database, so not a replay buffer: pass the .db file that dreamgym buffer import created, or a new path to create one.`,
          { cause: error },
        );
      }
      throw error;
    }
    this.sampler = new TransitionSampler(this.store);
    const annSync = (annClass: AnnClass) =>
      new AnnSync(this.store, {
        path: this.path,
        annClass,
        eager: annClass === 'real',
        dimensions: this.encoder.dimensions,
        threshold: options.annThreshold ?? 50_000,
        ann: options.ann ?? {},
        onIndexed: () => this.forget(annClass === 'real' ? 'all' : 'any'),
      });
    this.annSyncs = { real: annSync('real'), synthetic: annSync('synthetic') };
    this.seenRowid = this.store.maxRowid();
  }

  /** Opens (or creates) a buffer. */
  static open(options: SqliteBufferOptions = {}): SqliteReplayBuffer {
    const buffer = new SqliteReplayBuffer(options);
    for (const sync of Object.values(buffer.annSyncs)) sync.syncAtOpen();
    // A buffer on disk is where bulk imports go: have the encoder's worker ready for the first.
    // Until it is, batches are encoded on this thread, so a failure here costs only speed.
    if (buffer.path !== ':memory:') buffer.encoder.warm?.().catch(() => undefined);
    return buffer;
  }

  /**
   * Adds trajectories in one transaction: all of them or, on any error, none. Trajectories whose
   * id is already stored are skipped. Adds run one after another. A bulk add (more than
   * `chunkSize` transitions) embeds its next chunk while it writes the current one, keeping the
   * transaction open in between; `retrieve` waits for it, and the synchronous readers (`sample`,
   * `stats`, `trajectories`, …) refuse to run during it rather than show a half-written batch.
   */
  add(trajectories: readonly Trajectory[]): Promise<AddResult> {
    this.assertOpen();
    const run = this.writes.then(() => this.addNow(trajectories));
    this.writes = run.catch(() => undefined);
    return run;
  }

  /**
   * Adds every trajectory a source yields (a JSONL file read line by line, say) in one
   * transaction, a chunk at a time, so a source of millions of transitions is never held in
   * memory: all of them or, on any error — the source's own included — none. Trajectories whose
   * id is already stored are skipped. Runs in turn with `add`, and holds readers off like a bulk
   * add.
   */
  addStream(source: AsyncIterable<Trajectory>): Promise<AddResult> {
    this.assertOpen();
    const run = this.writes.then(async () => {
      // The lock is taken before readers are held: waiting for another process must not stall them.
      await this.beginWrite();
      try {
        return await this.holdingReaders(async () => {
          const counts = { added: 0, skipped: 0 };
          await this.bulkInsert(this.freshChunks(source, counts));
          await this.indexNewRows();
          return counts;
        });
      } catch (error) {
        this.endWrite('ROLLBACK');
        throw error;
      }
    });
    this.writes = run.catch(() => undefined);
    return run;
  }

  /** The source's trajectories not stored yet, in chunks of about `chunkSize` transitions. */
  private async *freshChunks(
    source: AsyncIterable<Trajectory>,
    counts: AddResult,
  ): AsyncGenerator<Trajectory[]> {
    const known = this.store.sql('SELECT 1 FROM trajectories WHERE id = ?').pluck();
    const seen = new Set<string>();
    let chunk: Trajectory[] = [];
    let steps = 0;
    for await (const t of source) {
      if (seen.has(t.id) || known.get(t.id)) {
        counts.skipped++;
        continue;
      }
      seen.add(t.id);
      counts.added++;
      chunk.push(t);
      steps += t.steps.length;
      if (steps >= this.chunkSize) {
        yield chunk;
        chunk = [];
        steps = 0;
      }
    }
    if (chunk.length > 0) yield chunk;
  }

  private async addNow(trajectories: readonly Trajectory[]): Promise<AddResult> {
    this.assertOpen();
    // Locked before the ids are checked: another process may be adding the same trajectories.
    await this.beginWrite();
    const counts = { added: 0, skipped: 0 };
    try {
      const chunks: Trajectory[][] = [];
      for await (const chunk of this.freshChunks(inOrder(trajectories), counts)) chunks.push(chunk);
      if (chunks.length > 1) {
        await this.holdingReaders(async () => {
          await this.bulkInsert(inOrder(chunks));
          await this.indexNewRows();
        });
        return counts;
      }
      const fresh = chunks[0] ?? [];
      const vectors = await this.encoder.encode(transitionKeys(fresh));
      this.store.insert(fresh, vectors);
      this.endWrite('COMMIT');
    } catch (error) {
      this.endWrite('ROLLBACK');
      throw error;
    }
    // Readers go on meanwhile, served by the index as it was; a small add takes one slice.
    await this.indexNewRows();
    return counts;
  }

  /**
   * After a commit: forgets the remembered answers the new transitions (this process's and, seen
   * now, other processes') may change, and brings the ANN indexes up to date.
   */
  private async indexNewRows(): Promise<void> {
    this.noteNewRows();
    await Promise.all(Object.values(this.annSyncs).map((sync) => sync.indexNewRows()));
  }

  /** Forgets the memo's answers that the transitions committed since the last call may change. */
  private noteNewRows(): void {
    const classes = this.store
      .sql('SELECT DISTINCT provenance FROM transitions WHERE rowid > ?')
      .pluck()
      .all(this.seenRowid) as Provenance[];
    this.seenRowid = this.store.maxRowid();
    if (classes.some((p) => annClassOf(p) === 'real')) this.forget('all');
    else if (classes.length > 0) this.forget('any');
  }

  /** Clears the memo: every answer, or those of searches that admit synthetic transitions. */
  private forget(which: 'all' | 'any'): void {
    this.retrievals.any.clear();
    if (which === 'all') this.retrievals.real.clear();
  }

  /**
   * Opens a write transaction (`BEGIN IMMEDIATE`, foreign-key checks off: see
   * `TransitionStore.insert`), waiting while another process holds the write lock — without blocking the
   * event loop. Each attempt fails at once rather than sleeping in SQLite's busy handler, which
   * would freeze a server for the whole wait (a bulk import holds the lock for all of it); the
   * next attempt comes after a short pause. Fails with a {@link BufferLockedError} after
   * `lockTimeoutMs`.
   */
  private async beginWrite(): Promise<void> {
    const started = performance.now();
    let pause = 5;
    let told = false;
    for (;;) {
      this.assertOpen();
      // SQLite ignores this pragma inside a transaction, hence before BEGIN.
      this.db.pragma('foreign_keys = OFF');
      this.db.pragma('busy_timeout = 0');
      try {
        this.db.exec('BEGIN IMMEDIATE');
        return;
      } catch (error) {
        this.db.pragma('foreign_keys = ON');
        if ((error as { code?: string }).code !== 'SQLITE_BUSY') throw error;
      } finally {
        this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      }
      const waited = performance.now() - started;
      if (waited >= this.lockTimeoutMs) throw new BufferLockedError(this.path, waited);
      if (!told && waited >= 1000) {
        told = true;
        this.onLockWait?.(
          `${this.path} is being written by another process; waiting for it to finish (up to ${Math.round(this.lockTimeoutMs / 1000)} s)…`,
        );
      }
      await sleep(pause);
      pause = Math.min(2 * pause, 200);
    }
  }

  /** Ends the transaction {@link beginWrite} opened and turns foreign-key checks back on. */
  private endWrite(how: 'COMMIT' | 'ROLLBACK'): void {
    try {
      if (how === 'COMMIT' || this.db.inTransaction) this.db.exec(how);
    } finally {
      this.db.pragma('foreign_keys = ON');
    }
  }

  /**
   * Runs a bulk write that keeps its transaction open across awaits, with `retrieve` waiting and
   * the synchronous readers refusing until it has committed and the indexes are up to date.
   */
  private async holdingReaders<T>(body: () => Promise<T>): Promise<T> {
    let done = () => {};
    this.bulkAdd = new Promise<void>((resolve) => {
      done = resolve;
    });
    try {
      return await body();
    } finally {
      this.bulkAdd = undefined;
      done();
    }
  }

  /**
   * Writes chunk i while chunk i + 1 is being embedded, all in the transaction
   * {@link beginWrite} opened, which it commits (or rolls back): chunk i + 1 is read and sent to
   * the encoder before chunk i is written.
   */
  private async bulkInsert(chunks: AsyncIterator<Trajectory[]>): Promise<void> {
    const embed = (chunk: Trajectory[]) => {
      const pending = this.encoder.encode(transitionKeys(chunk));
      pending.catch(() => undefined); // awaited in its turn; this only keeps an early exit quiet
      return pending;
    };
    try {
      let next = await chunks.next();
      let embedding = next.done ? undefined : embed(next.value);
      while (!next.done) {
        const chunk = next.value;
        const chunkVectors = embedding as Promise<Float32Array[]>;
        next = await chunks.next();
        embedding = next.done ? undefined : embed(next.value);
        this.store.insert(chunk, await chunkVectors);
      }
      this.endWrite('COMMIT');
    } catch (error) {
      this.endWrite('ROLLBACK');
      await chunks.return?.();
      throw error;
    }
  }

  /** The `k` stored transitions most similar to `key`, most similar first. */
  async retrieve(
    key: TransitionKey,
    k: number,
    filter: RetrieveFilter = {},
  ): Promise<RetrievedTransition[]> {
    this.assertOpen();
    if (k <= 0) return [];
    // Rollouts ask the same question often (a GRPO group starts from the same pages); answers
    // only change when transitions are added, which clears the memo.
    const classes = admittedClasses(filter);
    const memo = this.retrievals[classes.length === 1 && classes[0] === 'real' ? 'real' : 'any'];
    const memoKey = JSON.stringify([key.state.text, key.action, key.task.instruction, k, filter]);
    const remembered = memo.get(memoKey);
    if (remembered) return [...remembered];
    const found = await this.search(key, k, filter, classes);
    if (this.memoSize === 0) return found;
    if (memo.size >= this.memoSize) memo.clear();
    memo.set(memoKey, found);
    return [...found];
  }

  /**
   * The ANN indexes of the classes the filter admits answer, each with the k nearest of its class
   * that pass the filter, merged by distance; exact search answers when one of them is not built
   * (a lazy class's first search starts building it) or the filter rejects too many candidates.
   */
  private async search(
    key: TransitionKey,
    k: number,
    filter: RetrieveFilter,
    classes: readonly AnnClass[],
  ): Promise<RetrievedTransition[]> {
    const [vector] = await this.encoder.encode([key]);
    const query = vector as Float32Array;
    while (this.bulkAdd) await this.bulkAdd;
    this.assertOpen();
    const syncs = classes.map((c) => this.annSyncs[c]);
    for (const sync of syncs) {
      if (sync.activate()) void sync.indexNewRows().catch(() => undefined);
      else sync.helpFirstBuild();
    }
    if (syncs.every((sync) => sync.ann)) {
      const excluded = this.store.trajectoryRowid(filter.excludeTrajectory);
      const found: Array<{ key: number; distance: number }> = [];
      for (const sync of syncs) {
        const index = {
          annClass: sync.annClass,
          ann: sync.ann as AnnIndex,
          filters: sync.filters as FilterIndex,
        };
        const nearest = annSearch(index, query, k, filter, excluded, this.overfetch);
        if (!nearest) return exactRetrieve(this.store, query, k, filter);
        found.push(...nearest);
      }
      const chosen = found.sort((a, b) => a.distance - b.distance).slice(0, k);
      const rows = new Map(this.store.fetch(chosen.map((c) => c.key)).map((row) => [row.id, row]));
      return chosen.map((c) => ({
        ...(rows.get(c.key) as StoredTransition),
        similarity: 1 - c.distance,
      }));
    }
    return exactRetrieve(this.store, query, k, filter);
  }

  /** `n` transitions drawn with replacement, with a real/synthetic mix and recency weighting. */
  async sample(n: number, options: SampleOptions = {}): Promise<StoredTransition[]> {
    this.assertIdle('sample');
    return this.sampler.sample(n, options);
  }

  /** What the buffer holds now (see `BufferStats`). */
  async stats(): Promise<BufferStats> {
    this.assertIdle('stats');
    return bufferStats(this.db, {
      path: this.path,
      annIndexed: {
        real: this.annSyncs.real.ann?.size ?? null,
        synthetic: this.annSyncs.synthetic.ann?.size ?? null,
      },
      encoder: this.encoder.id,
    });
  }

  /** Every stored trajectory, oldest first, rebuilt exactly as it was added. */
  async *trajectories(filter: TrajectoryFilter = {}): AsyncGenerator<Trajectory> {
    this.assertIdle('trajectories');
    yield* storedTrajectories(this.store, filter);
  }

  /**
   * Ids of the stored trajectories, oldest first. With {@link trajectoryTransitions} this makes a
   * pass over the buffer that writes as it goes (annotating reasoning, say), which an open
   * `trajectories()` iterator would block: SQLite refuses writes while a query is being read.
   */
  async trajectoryIds(filter: TrajectoryFilter = {}): Promise<string[]> {
    this.assertIdle('trajectoryIds');
    return storedTrajectoryIds(this.store, filter);
  }

  /** A stored trajectory's transitions with their ids, in step order; none for an unknown id. */
  async trajectoryTransitions(trajectoryId: string): Promise<StoredTransition[]> {
    this.assertIdle('trajectoryTransitions');
    return storedTrajectoryTransitions(this.store, trajectoryId);
  }

  /**
   * Stores a teacher LLM's explanation of why a transition happened (the experience model's SFT
   * target) as `info.teacherReasoning`, replacing any earlier one (see `setTeacherReasoning`).
   */
  async setTeacherReasoning(transitionId: number, reasoning: string): Promise<void> {
    this.assertIdle('setTeacherReasoning');
    setTeacherReasoning(this.store, transitionId, reasoning);
    this.forget('all');
  }

  /**
   * Waits for pending adds, stops an index catch-up at its next slice, saves the ANN index (if
   * any) and closes the database. Idempotent.
   */
  async close(): Promise<void> {
    await this.writes;
    const syncs = Object.values(this.annSyncs);
    await Promise.all(syncs.map((sync) => sync.stop()));
    if (this.closed) return;
    for (const sync of syncs) await sync.save();
    this.closed = true;
    this.db.close();
    if (this.ownsEncoder) await this.encoder.close?.();
  }

  /** Rows whose references dangle (`PRAGMA foreign_key_check`); none in a sound buffer. */
  foreignKeyViolations(): unknown[] {
    this.assertIdle('foreignKeyViolations');
    return this.db.pragma('foreign_key_check') as unknown[];
  }

  /** Runs `PRAGMA integrity_check`; 'ok' when the database is sound. */
  integrityCheck(): string {
    return this.db.pragma('integrity_check', { simple: true }) as string;
  }

  private checkEncoder(): void {
    const stored = this.store.getMeta('encoder');
    if (stored === undefined) this.store.setMeta('encoder', this.encoder.id);
    else if (stored !== this.encoder.id) {
      throw new BufferSchemaError(
        `${this.path} holds vectors from encoder ${stored}, not ${this.encoder.id}; open it with the same embedder settings or build a new buffer.`,
      );
    }
  }

  /** Synchronous readers see the connection's open transaction, so they wait for no bulk add. */
  private assertIdle(method: string): void {
    this.assertOpen();
    if (this.bulkAdd)
      throw new Error(
        `ReplayBuffer.${method}() was called while add() is writing a bulk batch to ${this.path}; await the add() first.`,
      );
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`replay buffer ${this.path} is closed; open it again.`);
  }
}

/** An async iterator over an array's items. */
async function* inOrder<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

/** The retrieval keys of trajectories' transitions, in order. */
function transitionKeys(trajectories: readonly Trajectory[]): TransitionKey[] {
  return trajectories.flatMap(transitions);
}

/** Loads sqlite-vec into `db`; its platform binary missing is a {@link VectorExtensionMissingError}. */
function loadVectorExtension(db: Database.Database): void {
  try {
    sqliteVec.load(db);
  } catch (error) {
    const missing = /Cannot find (?:package|module) '(sqlite-vec-[^'/]+)/.exec(
      (error as Error).message,
    );
    if (missing) throw new VectorExtensionMissingError(missing[1] as string, { cause: error });
    throw error;
  }
}
