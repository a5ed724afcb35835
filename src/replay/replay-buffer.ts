import * as crypto from 'node:crypto';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { Rng } from '../core/rng.ts';
import {
  finalReward,
  isSuccess,
  type Observation,
  type Provenance,
  type Step,
  type StepInfo,
  type Task,
  type Trajectory,
  type Transition,
  transitions,
} from '../core/types.ts';
import { AnnIndex, type AnnOptions } from './ann-index.ts';
import {
  BufferLocationError,
  BufferLockedError,
  BufferNotFoundError,
  checkBufferLocation,
} from './buffer-errors.ts';
import { checkProvenance, FilterIndex, type RetrieveFilter } from './filter-index.ts';
import { BufferSchemaError, migrate } from './schema.ts';
import { ThreadedTransitionEncoder } from './threaded-encoder.ts';
import type { KeyEncoder, TransitionKey } from './transition-encoder.ts';

/** Where a buffer lives and how it embeds, indexes and locks. */
export interface ReplayBufferOptions {
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
  /** Answers of `retrieve` remembered until the next `add` (0 turns the memo off). Default 10,000. */
  memoSize?: number;
  ann?: AnnOptions & {
    /**
     * A filtered ANN search fetches 2 candidates per wanted result, then this many if too few
     * pass the filter, then falls back to exact search. Default 16.
     */
    overfetch?: number;
  };
}

/** A transition as stored: the transition plus where it came from. */
export interface StoredTransition extends Transition {
  /** Row id in the buffer. */
  id: number;
  trajectoryId: string;
  provenance: Provenance;
  policyId: string;
  info?: StepInfo;
}

export interface RetrievedTransition extends StoredTransition {
  /** Cosine similarity of the query key and this transition's key, in [-1, 1]. */
  similarity: number;
}

/** How `sample` draws: the share of real transitions, recency weighting, the env and the random stream. */
export interface SampleOptions {
  /** Share of real transitions (real-offline and real-online) in the sample; default: as stored. */
  realShare?: number;
  /** Newer transitions weigh more: a transition this many places older has half the weight. */
  recencyHalfLife?: number;
  env?: string;
  /** Random stream; default seeded with 0. */
  rng?: Rng;
}

/** What a buffer holds: trajectories, transitions, distinct observations, success rate, counts by env, size, retrieval index and encoder. */
export interface BufferStats {
  trajectories: number;
  transitions: number;
  distinctObservations: number;
  successRate: number;
  byEnv: Record<
    string,
    Record<Provenance, { trajectories: number; transitions: number; successRate: number }>
  >;
  /** Database size on disk (0 for `:memory:`). */
  bytes: number;
  retrieval: 'exact' | 'ann';
  encoder: string;
}

export type { RetrieveFilter } from './filter-index.ts';

const REAL: readonly Provenance[] = ['real-offline', 'real-online'];

/**
 * How long SQLite itself waits for a lock, in ms. Adds never use it (they wait asynchronously,
 * see `beginWrite`); the rare other writes (metadata, teacher reasoning) do.
 */
const BUSY_TIMEOUT_MS = 5000;
/** Transitions read per query of an index catch-up, and a slice's time budget in ms. */
const SLICE_ROWS = 16;
const SLICE_MS = 4;

/**
 * The replay buffer: trajectories with provenance in SQLite (WAL), every transition embedded for
 * similarity retrieval. Retrieval is exact (sqlite-vec) up to `annThreshold` transitions and
 * approximate (HNSW, persisted beside the database as `<path>.usearch`) beyond, its candidates
 * filtered in memory (`FilterIndex`). Writes run one at a time, each one transaction; bulk
 * writes embed on a worker thread ({@link ThreadedTransitionEncoder}) while writing.
 */
export class ReplayBuffer {
  readonly path: string;
  readonly encoder: KeyEncoder;
  private readonly db: Database.Database;
  private readonly annThreshold: number;
  private readonly annOptions: AnnOptions;
  private readonly overfetch: number;
  private readonly memoSize: number;
  private ann: AnnIndex | undefined;
  /** Filter columns in memory, kept while the ANN index is in use. */
  private filters: FilterIndex | undefined;
  private readonly statements = new Map<string, Database.Statement>();
  /** The ANN index holds every transition up to this rowid. */
  private annUpTo = 0;
  private readonly tasks = new Map<string, Task>();
  private readonly sampling = new Map<
    string,
    { real: number[]; synthetic: number[]; upTo: number }
  >();
  private readonly chunkSize: number;
  private readonly ownsEncoder: boolean;
  private readonly lockTimeoutMs: number;
  private readonly onLockWait: ((message: string) => void) | undefined;
  private closed = false;
  /** Set by `close()`: a running index catch-up stops at its next slice. */
  private closing = false;
  /** Settles when the index catch-ups started so far have finished; they run one at a time. */
  private annSync: Promise<void> = Promise.resolve();
  /** Settles when every `add` called so far has finished; adds run one at a time. */
  private writes: Promise<unknown> = Promise.resolve();
  /** Set while a bulk add holds a transaction open across awaits (see {@link add}). */
  private bulkAdd: Promise<unknown> | undefined;
  private readonly retrievals = new Map<string, RetrievedTransition[]>();

  private constructor(options: ReplayBufferOptions) {
    this.path = options.path ?? ':memory:';
    this.encoder = options.encoder ?? new ThreadedTransitionEncoder();
    this.ownsEncoder = options.encoder === undefined;
    this.chunkSize = options.chunkSize ?? 1024;
    this.annThreshold = options.annThreshold ?? 50_000;
    this.annOptions = options.ann ?? {};
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
      sqliteVec.load(this.db);
      migrate(this.db, this.encoder.dimensions, this.path);
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
  }

  /** Opens (or creates) a buffer. */
  static open(options: ReplayBufferOptions = {}): ReplayBuffer {
    const buffer = new ReplayBuffer(options);
    buffer.syncAnn();
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
  add(trajectories: readonly Trajectory[]): Promise<{ added: number; skipped: number }> {
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
  addStream(source: AsyncIterable<Trajectory>): Promise<{ added: number; skipped: number }> {
    this.assertOpen();
    const run = this.writes.then(async () => {
      // The lock is taken before readers are held: waiting for another process must not stall them.
      await this.beginWrite();
      try {
        return await this.holdingReaders(async () => {
          const counts = { added: 0, skipped: 0 };
          await this.bulkInsert(this.freshChunks(source, counts));
          this.retrievals.clear();
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
    counts: { added: number; skipped: number },
  ): AsyncGenerator<Trajectory[]> {
    const known = this.sql('SELECT 1 FROM trajectories WHERE id = ?').pluck();
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

  private async addNow(
    trajectories: readonly Trajectory[],
  ): Promise<{ added: number; skipped: number }> {
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
          this.retrievals.clear();
          await this.indexNewRows();
        });
        return counts;
      }
      const fresh = chunks[0] ?? [];
      const vectors = await this.encoder.encode(transitionKeys(fresh));
      this.insert(fresh, vectors);
      this.endWrite('COMMIT');
    } catch (error) {
      this.endWrite('ROLLBACK');
      throw error;
    }
    this.retrievals.clear();
    // Readers go on meanwhile, served by the index as it was; a small add takes one slice.
    await this.indexNewRows();
    return counts;
  }

  /**
   * Opens a write transaction (`BEGIN IMMEDIATE`, foreign-key checks off: see
   * {@link insert}), waiting while another process holds the write lock — without blocking the
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
        this.insert(chunk, await chunkVectors);
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
    const memoKey = JSON.stringify([key.state.text, key.action, key.task.instruction, k, filter]);
    const memo = this.retrievals.get(memoKey);
    if (memo) return [...memo];
    const found = await this.search(key, k, filter);
    if (this.memoSize === 0) return found;
    if (this.retrievals.size >= this.memoSize) this.retrievals.clear();
    this.retrievals.set(memoKey, found);
    return [...found];
  }

  private async search(
    key: TransitionKey,
    k: number,
    filter: RetrieveFilter,
  ): Promise<RetrievedTransition[]> {
    const [vector] = await this.encoder.encode([key]);
    const query = vector as Float32Array;
    while (this.bulkAdd) await this.bulkAdd;
    this.assertOpen();
    if (this.ann) {
      let passes: ((transition: number) => boolean) | undefined;
      if (hasFilter(filter)) {
        this.filters ??= FilterIndex.load(this.db);
        passes = this.filters.matcher(filter, this.trajectoryRowid(filter.excludeTrajectory));
      }
      // Without a filter the k nearest are the answer; with one, over-fetch and keep those passing.
      for (const factor of passes ? [2, this.overfetch] : [1]) {
        const wanted = k * factor;
        const candidates = this.ann.search(query, wanted);
        const chosen = (passes ? candidates.filter((c) => passes(c.key)) : candidates).slice(0, k);
        if (chosen.length === k || candidates.length < wanted) {
          const rows = new Map(this.fetch(chosen.map((c) => c.key)).map((row) => [row.id, row]));
          return chosen.map((c) => ({
            ...(rows.get(c.key) as StoredTransition),
            similarity: 1 - c.distance,
          }));
        }
      }
      // The filter rejected too many ANN candidates: answer exactly instead.
    }
    return this.exactRetrieve(query, k, filter);
  }

  /** `n` transitions drawn with replacement, with a real/synthetic mix and recency weighting. */
  sample(n: number, options: SampleOptions = {}): StoredTransition[] {
    this.assertIdle('sample');
    const rng = options.rng ?? new Rng(0);
    const pools = this.samplingPools(options.env);
    const total = pools.real.length + pools.synthetic.length;
    if (total === 0 || n <= 0) return [];
    const realShare = options.realShare ?? pools.real.length / total;
    if (!(realShare >= 0 && realShare <= 1))
      throw new RangeError(`sample: realShare must be in [0, 1], got ${realShare}`);
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      let pool = rng.chance(realShare) ? pools.real : pools.synthetic;
      if (pool.length === 0) pool = pool === pools.real ? pools.synthetic : pools.real;
      ids.push(pool[pickIndex(pool.length, options.recencyHalfLife, rng)] as number);
    }
    const byId = new Map(this.fetch([...new Set(ids)]).map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id) as StoredTransition);
  }

  /** What the buffer holds now (see `BufferStats`). */
  stats(): BufferStats {
    this.assertIdle('stats');
    const rows = this.db
      .prepare(
        `SELECT env, provenance, COUNT(*) AS trajectories, SUM(steps) AS transitions, AVG(success) AS successRate
         FROM trajectories GROUP BY env, provenance ORDER BY env, provenance`,
      )
      .all() as Array<{
      env: string;
      provenance: Provenance;
      trajectories: number;
      transitions: number;
      successRate: number;
    }>;
    const byEnv: BufferStats['byEnv'] = {};
    let trajectories = 0;
    let transitions = 0;
    let successes = 0;
    for (const row of rows) {
      byEnv[row.env] ??= {} as BufferStats['byEnv'][string];
      (byEnv[row.env] as BufferStats['byEnv'][string])[row.provenance] = {
        trajectories: row.trajectories,
        transitions: row.transitions,
        successRate: row.successRate,
      };
      trajectories += row.trajectories;
      transitions += row.transitions;
      successes += row.successRate * row.trajectories;
    }
    return {
      trajectories,
      transitions,
      distinctObservations: this.db
        .prepare('SELECT COUNT(*) FROM observations')
        .pluck()
        .get() as number,
      successRate: trajectories ? successes / trajectories : 0,
      byEnv,
      bytes: this.path === ':memory:' ? 0 : fileSize(this.path) + fileSize(`${this.path}-wal`),
      retrieval: this.ann ? 'ann' : 'exact',
      encoder: this.encoder.id,
    };
  }

  /** Every stored trajectory, oldest first, rebuilt exactly as it was added. */
  *trajectories(filter: { env?: string; provenance?: Provenance } = {}): Generator<Trajectory> {
    this.assertIdle('trajectories');
    const rows = this.db
      .prepare(
        `SELECT rowid, id, env, task_id, provenance, policy_id, seed, started_at, ended_at, initial_observation
         FROM trajectories WHERE (@env IS NULL OR env = @env) AND (@provenance IS NULL OR provenance = @provenance)
         ORDER BY rowid`,
      )
      .iterate({
        env: filter.env ?? null,
        provenance: filter.provenance ?? null,
      }) as Iterable<TrajectoryRow>;
    const stepsOf = this.db.prepare(
      `SELECT action, o.json AS observation, reward, terminated, truncated, reasoning, info
       FROM transitions JOIN observations o ON o.id = next_state WHERE trajectory = ? ORDER BY t`,
    );
    const observation = this.db.prepare('SELECT json FROM observations WHERE id = ?').pluck();
    for (const row of rows) {
      const steps = (stepsOf.all(row.rowid) as StepRow[]).map((s) => {
        const step: Step = {
          action: s.action,
          observation: JSON.parse(s.observation) as Observation,
          reward: s.reward,
          terminated: s.terminated === 1,
          truncated: s.truncated === 1,
        };
        if (s.reasoning !== null) step.reasoning = s.reasoning;
        if (s.info !== null) step.info = JSON.parse(s.info) as StepInfo;
        return step;
      });
      const trajectory: Trajectory = {
        id: row.id,
        env: row.env,
        task: this.task(row.task_id),
        initial: JSON.parse(observation.get(row.initial_observation) as string) as Observation,
        steps,
        provenance: row.provenance,
        policyId: row.policy_id,
        startedAt: row.started_at,
        endedAt: row.ended_at,
      };
      if (row.seed !== null) trajectory.seed = row.seed;
      yield trajectory;
    }
  }

  /**
   * Ids of the stored trajectories, oldest first. With {@link trajectoryTransitions} this makes a
   * pass over the buffer that writes as it goes (annotating reasoning, say), which an open
   * `trajectories()` iterator would block: SQLite refuses writes while a query is being read.
   */
  trajectoryIds(
    filter: { env?: string; provenance?: Provenance | readonly Provenance[] } = {},
  ): string[] {
    this.assertIdle('trajectoryIds');
    return this.db
      .prepare(
        `SELECT id FROM trajectories WHERE (@env IS NULL OR env = @env)
           AND (@provenances IS NULL OR provenance IN (SELECT value FROM json_each(@provenances)))
         ORDER BY rowid`,
      )
      .pluck()
      .all({
        env: filter.env ?? null,
        provenances:
          filter.provenance === undefined ? null : JSON.stringify([filter.provenance].flat()),
      }) as string[];
  }

  /** A stored trajectory's transitions with their ids, in step order; none for an unknown id. */
  trajectoryTransitions(trajectoryId: string): StoredTransition[] {
    this.assertIdle('trajectoryTransitions');
    const ids = this.db
      .prepare(
        'SELECT tr.rowid FROM transitions tr JOIN trajectories j ON j.rowid = tr.trajectory WHERE j.id = ?',
      )
      .pluck()
      .all(trajectoryId) as number[];
    return this.fetch(ids).sort((a, b) => a.t - b.t);
  }

  /**
   * Stores a teacher LLM's explanation of why a transition happened (the experience model's SFT
   * target) as `info.teacherReasoning`, replacing any earlier one. Not in `reasoning`, which holds
   * the policy's reasoning on real steps; `info` keeps it through JSONL export and import.
   */
  setTeacherReasoning(transitionId: number, reasoning: string): void {
    this.assertIdle('setTeacherReasoning');
    const { changes } = this.db
      .prepare(
        `UPDATE transitions SET info = json_set(coalesce(info, '{}'), '$.teacherReasoning', ?) WHERE rowid = ?`,
      )
      .run(reasoning, transitionId);
    this.retrievals.clear();
    if (changes === 0)
      throw new RangeError(
        `setTeacherReasoning: ${this.path} has no transition ${transitionId}; take ids from trajectoryTransitions() or retrieve().`,
      );
  }

  /**
   * Waits for pending adds, stops an index catch-up at its next slice, saves the ANN index (if
   * any) and closes the database. Idempotent.
   */
  async close(): Promise<void> {
    await this.writes;
    this.closing = true;
    await this.annSync;
    if (this.closed) return;
    if (this.ann && this.path !== ':memory:') {
      await this.ann.save(annPath(this.path));
      this.setMeta('ann_saved_rowid', String(this.annUpTo));
    }
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

  /**
   * Writes trajectories and their transitions' vectors; the caller holds the transaction, with
   * foreign-key checks off: `insert` takes every id it references from rows it has just written
   * or looked up, and the checks cost an eighth of the insert time. A test runs
   * `foreign_key_check`.
   */
  private insert(trajectories: readonly Trajectory[], vectors: readonly Float32Array[]): void {
    const insertTask = this.sql('INSERT OR IGNORE INTO tasks (id, env, json) VALUES (?, ?, ?)');
    const insertObservation = this.sql(
      'INSERT OR IGNORE INTO observations (hash, json) VALUES (?, ?)',
    );
    const observationByHash = this.sql('SELECT id FROM observations WHERE hash = ?').pluck();
    const insertTrajectory = this.sql(
      `INSERT INTO trajectories (id, env, task_id, provenance, policy_id, seed, started_at, ended_at, added_at,
         initial_observation, steps, final_reward, success)
       VALUES (@id, @env, @taskId, @provenance, @policyId, @seed, @startedAt, @endedAt, @addedAt,
         @initial, @steps, @finalReward, @success)`,
    );
    const insertTransition = this.sql(
      `INSERT INTO transitions (trajectory, t, state, action, next_state, reward, terminated, truncated, reasoning, info, provenance)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertVector = this.sql(
      'INSERT INTO transition_vectors (rowid, embedding, env, provenance, success, trajectory) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const observationId = (o: Observation): number => {
      const json = JSON.stringify(o);
      const hash = sha1(json).readBigInt64LE(0);
      const { changes, lastInsertRowid } = insertObservation.run(hash, json);
      return changes === 1 ? Number(lastInsertRowid) : (observationByHash.get(hash) as number);
    };
    const addedAt = new Date().toISOString();
    let v = 0;
    for (const t of trajectories) {
      insertTask.run(t.task.id, t.task.env, JSON.stringify(t.task));
      const initial = observationId(t.initial);
      const success = isSuccess(t) ? 1 : 0;
      const trajectory = insertTrajectory.run({
        id: t.id,
        env: t.env,
        taskId: t.task.id,
        provenance: t.provenance,
        policyId: t.policyId,
        seed: t.seed ?? null,
        startedAt: t.startedAt,
        endedAt: t.endedAt,
        addedAt,
        initial,
        steps: t.steps.length,
        finalReward: finalReward(t),
        success,
      }).lastInsertRowid;
      let state = initial;
      t.steps.forEach((step, i) => {
        const next = observationId(step.observation);
        const rowid = insertTransition.run(
          trajectory,
          i,
          state,
          step.action,
          next,
          step.reward,
          step.terminated ? 1 : 0,
          step.truncated ? 1 : 0,
          step.reasoning ?? null,
          step.info === undefined ? null : JSON.stringify(step.info),
          t.provenance,
        ).lastInsertRowid;
        const vector = vectors[v++] as Float32Array;
        insertVector.run(
          BigInt(rowid),
          vectorBlob(vector),
          t.env,
          t.provenance,
          BigInt(success),
          BigInt(trajectory),
        );
        state = next;
      });
    }
  }

  private exactRetrieve(
    query: Float32Array,
    k: number,
    filter: RetrieveFilter,
  ): RetrievedTransition[] {
    const where = ['embedding MATCH @query', 'k = @k'];
    const params: Record<string, unknown> = { query: vectorBlob(query), k: BigInt(k) };
    if (filter.env !== undefined) {
      where.push('env = @env');
      params.env = filter.env;
    }
    const provenances = filter.provenance === undefined ? undefined : [filter.provenance].flat();
    if (provenances)
      where.push(`provenance IN (${provenances.map((p) => `'${checkProvenance(p)}'`).join(', ')})`);
    if (filter.success !== undefined) {
      where.push('success = @success');
      params.success = BigInt(filter.success ? 1 : 0);
    }
    const excluded = this.trajectoryRowid(filter.excludeTrajectory);
    if (excluded !== undefined) {
      where.push('trajectory != @exclude');
      params.exclude = BigInt(excluded);
    }
    const hits = this.sql(
      `SELECT rowid, distance FROM transition_vectors WHERE ${where.join(' AND ')} ORDER BY distance`,
    ).all(params) as Array<{ rowid: number; distance: number }>;
    const rows = new Map(this.fetch(hits.map((h) => h.rowid)).map((r) => [r.id, r]));
    return hits.map((h) => ({
      ...(rows.get(h.rowid) as StoredTransition),
      similarity: 1 - h.distance,
    }));
  }

  /** Transitions by rowid, in no particular order. */
  private fetch(ids: readonly number[]): StoredTransition[] {
    if (ids.length === 0) return [];
    const rows = this.sql(
      `SELECT tr.rowid AS id, tr.t, tr.action, tr.reward, tr.terminated, tr.truncated, tr.reasoning, tr.info,
           s.json AS state, n.json AS nextState, j.id AS trajectoryId, j.task_id AS taskId, j.provenance, j.policy_id AS policyId
         FROM transitions tr
           JOIN trajectories j ON j.rowid = tr.trajectory
           JOIN observations s ON s.id = tr.state
           JOIN observations n ON n.id = tr.next_state
         WHERE tr.rowid IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(ids)) as FetchRow[];
    return rows.map((r) => {
      const transition: StoredTransition = {
        id: r.id,
        trajectoryId: r.trajectoryId,
        provenance: r.provenance,
        policyId: r.policyId,
        task: this.task(r.taskId),
        t: r.t,
        state: JSON.parse(r.state) as Observation,
        action: r.action,
        nextState: JSON.parse(r.nextState) as Observation,
        reward: r.reward,
        terminated: r.terminated === 1,
        truncated: r.truncated === 1,
      };
      if (r.reasoning !== null) transition.reasoning = r.reasoning;
      if (r.info !== null) transition.info = JSON.parse(r.info) as StepInfo;
      return transition;
    });
  }

  private task(id: string): Task {
    let task = this.tasks.get(id);
    if (!task) {
      task = JSON.parse(
        this.sql('SELECT json FROM tasks WHERE id = ?').pluck().get(id) as string,
      ) as Task;
      this.tasks.set(id, task);
    }
    return task;
  }

  private samplingPools(env: string | undefined) {
    const key = env ?? '*';
    let pools = this.sampling.get(key);
    if (!pools) {
      pools = { real: [], synthetic: [], upTo: 0 };
      this.sampling.set(key, pools);
    }
    const rows = this.db
      .prepare(
        `SELECT tr.rowid AS id, tr.provenance FROM transitions tr JOIN trajectories j ON j.rowid = tr.trajectory
         WHERE tr.rowid > ? AND (? IS NULL OR j.env = ?) ORDER BY tr.rowid`,
      )
      .raw()
      .all(pools.upTo, env ?? null, env ?? null) as Array<[number, Provenance]>;
    for (const [id, provenance] of rows) {
      (REAL.includes(provenance) ? pools.real : pools.synthetic).push(id);
      pools.upTo = id;
    }
    return pools;
  }

  /** The highest transition rowid: the count, as transitions are never deleted. O(log n). */
  private maxRowid(): number {
    return (this.sql('SELECT MAX(rowid) FROM transitions').pluck().get() as number | null) ?? 0;
  }

  /**
   * Brings the ANN index in line with the database at open, in one go (nothing is served yet):
   * once there are more than `annThreshold` transitions, loads the saved index and adds what it
   * lacks (transitions added while it was not saved, e.g. after a crash), or builds it from
   * scratch when the file is missing.
   */
  private syncAnn(): void {
    if (this.maxRowid() <= this.annThreshold) return;
    let ann = new AnnIndex(this.encoder.dimensions, this.annOptions);
    let upTo = this.loadSavedAnn(ann);
    if (upTo === 0) ann = new AnnIndex(this.encoder.dimensions, this.annOptions);
    const filters = FilterIndex.load(this.db);
    for (let slice = this.indexSlice(ann, filters, upTo, 10_000); slice.rows > 0; ) {
      upTo = slice.upTo;
      slice = this.indexSlice(ann, filters, upTo, 10_000);
    }
    this.ann = ann;
    this.filters = filters;
    this.annUpTo = upTo;
  }

  /**
   * Adds the transitions committed since the index was last brought up to date — this process's
   * and other processes' alike — to the ANN index and the filter columns, or builds the index
   * once the database has crossed `annThreshold`. Works in slices of a few milliseconds with the
   * event loop turning in between, so a server keeps answering while another process's bulk
   * import is being indexed (issue 22): meanwhile retrieval uses the index as it is, or exact
   * search until a first build is complete. Catch-ups run one at a time.
   */
  private indexNewRows(): Promise<void> {
    const run = this.annSync.then(() => this.catchUp());
    this.annSync = run.catch(() => undefined);
    return run;
  }

  private async catchUp(): Promise<void> {
    if (this.closing || (!this.ann && this.maxRowid() <= this.annThreshold)) return;
    // A first build goes into a new index, swapped in when complete; a live one grows in place.
    const ann = this.ann ?? new AnnIndex(this.encoder.dimensions, this.annOptions);
    const filters = (this.ann && this.filters) || new FilterIndex();
    let upTo = this.ann ? this.annUpTo : 0;
    for (;;) {
      const started = performance.now();
      let slice: { rows: number; upTo: number };
      do {
        slice = this.indexSlice(ann, filters, upTo, SLICE_ROWS);
        upTo = slice.upTo;
        if (ann === this.ann) this.annUpTo = upTo;
      } while (slice.rows === SLICE_ROWS && performance.now() - started < SLICE_MS);
      if (slice.rows < SLICE_ROWS) break;
      await setImmediate();
      if (this.closing) return; // a first build is dropped; a live index keeps what it has
    }
    this.ann = ann;
    this.filters = filters;
    this.annUpTo = upTo;
    this.retrievals.clear();
  }

  /** Adds up to `limit` transitions after rowid `from` to `ann` and `filters`. */
  private indexSlice(
    ann: AnnIndex,
    filters: FilterIndex,
    from: number,
    limit: number,
  ): { rows: number; upTo: number } {
    const rows = this.sql(
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
  private loadSavedAnn(ann: AnnIndex): number {
    const saved = Number(this.getMeta('ann_saved_rowid') ?? 0);
    if (this.path === ':memory:' || saved === 0) return 0;
    try {
      if (!ann.load(annPath(this.path))) return 0;
    } catch {
      return 0;
    }
    const expected = this.db
      .prepare('SELECT COUNT(*) FROM transitions WHERE rowid <= ?')
      .pluck()
      .get(saved);
    return ann.size === expected ? saved : 0;
  }

  private checkEncoder(): void {
    const stored = this.getMeta('encoder');
    if (stored === undefined) this.setMeta('encoder', this.encoder.id);
    else if (stored !== this.encoder.id) {
      throw new BufferSchemaError(
        `${this.path} holds vectors from encoder ${stored}, not ${this.encoder.id}; open it with the same embedder settings or build a new buffer.`,
      );
    }
  }

  private getMeta(key: string): string | undefined {
    return this.db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as
      | string
      | undefined;
  }

  private setMeta(key: string, value: string): void {
    this.db
      .prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      )
      .run(key, value);
  }

  /** A prepared statement, prepared once per buffer. */
  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  /** The rowid of the trajectory with this id, if stored. */
  private trajectoryRowid(id: string | undefined): number | undefined {
    if (id === undefined) return undefined;
    return this.sql('SELECT rowid FROM trajectories WHERE id = ?').pluck().get(id) as
      | number
      | undefined;
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

interface TrajectoryRow {
  rowid: number;
  id: string;
  env: string;
  task_id: string;
  provenance: Provenance;
  policy_id: string;
  seed: number | null;
  started_at: string;
  ended_at: string;
  initial_observation: number;
}

interface StepRow {
  action: string;
  observation: string;
  reward: number;
  terminated: number;
  truncated: number;
  reasoning: string | null;
  info: string | null;
}

interface FetchRow {
  id: number;
  t: number;
  action: string;
  reward: number;
  terminated: number;
  truncated: number;
  reasoning: string | null;
  info: string | null;
  state: string;
  nextState: string;
  trajectoryId: string;
  taskId: string;
  provenance: Provenance;
  policyId: string;
}

/** An async iterator over an array's items. */
async function* inOrder<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}

/** The retrieval keys of trajectories' transitions, in order. */
function transitionKeys(trajectories: readonly Trajectory[]): TransitionKey[] {
  return trajectories.flatMap(transitions);
}

/** SHA-1 of a string: the one-shot `crypto.hash` where Node has it (≥ 20.12), else a Hash object. */
const sha1: (text: string) => Buffer =
  typeof crypto.hash === 'function'
    ? (text) => crypto.hash('sha1', text, 'buffer')
    : (text) => crypto.createHash('sha1').update(text).digest();

function hasFilter(filter: RetrieveFilter): boolean {
  return Object.values(filter).some((value) => value !== undefined);
}

function annPath(path: string): string {
  return `${path}.usearch`;
}

function vectorBlob(vector: Float32Array): Buffer {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
}

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** A transition's teacher reasoning (see `ReplayBuffer.setTeacherReasoning`), if it has one. */
export function teacherReasoning(step: { info?: StepInfo }): string | undefined {
  const reasoning = step.info?.teacherReasoning;
  return typeof reasoning === 'string' ? reasoning : undefined;
}

/**
 * An index into a pool ordered oldest → newest: uniform without a half-life, else the age (places
 * from the newest) is drawn from an exponential distribution truncated to the pool.
 */
function pickIndex(length: number, halfLife: number | undefined, rng: Rng): number {
  if (halfLife === undefined) return rng.int(length);
  const rate = Math.LN2 / halfLife;
  const tail = 1 - Math.exp(-rate * length);
  const age = Math.min(length - 1, Math.floor(-Math.log(1 - rng.float() * tail) / rate));
  return length - 1 - age;
}
