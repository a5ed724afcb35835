import pg from 'pg';
import {
  finalReward,
  isSuccess,
  type Observation,
  type Provenance,
  type StepInfo,
  type Task,
  type Trajectory,
  transitions,
} from '../core/types.ts';
import { AnnIndex, type AnnOptions, InsertSlices } from './ann-index.ts';
import { admittedClasses, annSearch } from './ann-search.ts';
import { type AnnClass, annClassOf } from './ann-sync.ts';
import { BufferConnectionError, redactUrl } from './buffer-errors.ts';
import { type BufferStats, countsByEnv } from './buffer-stats.ts';
import { FilterIndex, type RetrieveFilter } from './filter-index.ts';
import {
  enablePgvector,
  hasVectorColumn,
  type PgvectorStatus,
  pgvectorSearch,
  vectorLiteral,
} from './postgres-pgvector.ts';
import { migratePostgres, WRITE_LOCK } from './postgres-schema.ts';
import type { AddResult, ReplayBuffer, TrajectoryFilter } from './replay-buffer.ts';
import { drawIds, type SampleOptions } from './sampling.ts';
import { BufferSchemaError } from './schema.ts';
import { observationHash, vectorBytes, vectorFromBytes } from './stored-bytes.ts';
import { type RetrievedTransition, type StoredTransition, stepOf } from './stored-transition.ts';
import { ThreadedTransitionEncoder } from './threaded-encoder.ts';
import type { KeyEncoder, TransitionKey } from './transition-encoder.ts';

/** Where a PostgreSQL buffer lives and how it embeds and indexes. */
export interface PostgresBufferOptions {
  /** `postgres://user[:password]@host[:port]/database`. */
  url: string;
  /** How transitions are embedded; default as for SQLite (hashing, 3 × 128 dimensions). */
  encoder?: KeyEncoder;
  /** Connections this process keeps. Default 4. */
  poolSize?: number;
  /**
   * HNSW settings. With pgvector, `connectivity` and `expansionAdd` are the index's `m` and
   * `ef_construction`, fixed by the process that builds it, and `expansionSearch` is each
   * query's `hnsw.ef_search`; without, they shape each process's usearch indexes, whose filtered
   * searches fetch `overfetch` candidates per wanted result before an exhaustive one (default 16).
   */
  ann?: AnnOptions & { overfetch?: number };
}

/** The usearch indexes and filter columns a process keeps where it cannot search with pgvector. */
interface InProcessIndexes {
  indexes: Record<AnnClass, AnnIndex>;
  filters: FilterIndex;
}

/** Transitions read per query while the in-process index catches up with the table. */
const CATCH_UP_ROWS = 2000;

/**
 * How long a retrieve waits for the in-process index to take in other processes' new
 * transitions before it answers from the index as it is (ms): a bulk import elsewhere is indexed
 * in slices meanwhile, and searches are not held up for all of it.
 */
const CATCH_UP_WAIT_MS = 50;

/**
 * The replay buffer on PostgreSQL (≥ 13): one buffer shared by rollout workers, servers and
 * collectors on many machines. Each add is one transaction; adds take a transaction-level advisory
 * lock, so they commit one at a time in `rowid` order. Reads run concurrently with adds.
 *
 * Retrieval runs in SQL where the server has pgvector (HNSW indexes in the database, see
 * `enablePgvector`; processes hold no vectors). Where it has not, or this role may not create the
 * extension (`stats().retrievalNote` says which), every process keeps its own usearch index (one
 * per provenance class, as SQLite's) in sync by the highest rowid it has seen, which the ordered
 * commits allow: it catches up on open, after each of its adds and before each search, so a
 * retrieve after an add (any process's) sees it — except while another process's bulk add is
 * being indexed: that runs in slices with the event loop turning, and a search waits for it
 * 50 ms at most, then answers from the index as it is (as SQLite's buffer does).
 */
export class PostgresReplayBuffer implements ReplayBuffer {
  readonly path: string;
  readonly encoder: KeyEncoder;
  private readonly pool: pg.Pool;
  private readonly ownsEncoder: boolean;
  private readonly overfetch: number;
  private readonly annOptions: AnnOptions;
  /** Whether retrieval runs in SQL; set at open. */
  private pgvector: PgvectorStatus = { enabled: false, reason: 'not opened' };
  /** The usearch indexes and filter columns in this process; none where pgvector searches. */
  private inProcess: InProcessIndexes | undefined;
  /** Whether the transitions carry `vec` (see `hasVectorColumn`): adds then fill it. */
  private vectorColumn = false;
  /** Transition ids by provenance class and env, oldest first (for `sample`). */
  private readonly pools = new Map<string, { real: number[]; synthetic: number[] }>();
  private readonly tasks = new Map<string, Task>();
  /** The sampling pools (and in-process indexes) hold every transition up to this rowid. */
  private upTo = 0;
  private catchingUp: Promise<void> | undefined;
  /** Sizes the in-process index's insert batches (see {@link InsertSlices}). */
  private readonly slices = new InsertSlices();
  private closed = false;

  private constructor(options: PostgresBufferOptions, where: string) {
    this.path = where;
    this.encoder = options.encoder ?? new ThreadedTransitionEncoder();
    this.ownsEncoder = options.encoder === undefined;
    this.overfetch = options.ann?.overfetch ?? 16;
    this.annOptions = options.ann ?? {};
    this.pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 4 });
    this.pool.on('error', () => undefined); // an idle connection dropped; the next query reconnects
  }

  /**
   * Connects, creates or migrates the schema, checks the encoder, and turns pgvector on or else
   * builds the in-process indexes.
   */
  static async open(options: PostgresBufferOptions): Promise<PostgresReplayBuffer> {
    const buffer = new PostgresReplayBuffer(options, redactUrl(options.url));
    try {
      const client = await buffer.connect();
      try {
        await migratePostgres(client, buffer.path);
        await client.query(
          "INSERT INTO meta (key, value) VALUES ('encoder', $1) ON CONFLICT (key) DO NOTHING",
          [buffer.encoder.id],
        );
        const stored = (await client.query("SELECT value FROM meta WHERE key = 'encoder'")).rows[0]
          ?.value as string;
        if (stored !== buffer.encoder.id) {
          throw new BufferSchemaError(
            `${buffer.path} holds vectors from encoder ${stored}, not ${buffer.encoder.id}; open it with the same embedder settings or build a new buffer.`,
          );
        }
        buffer.pgvector = await enablePgvector(
          client,
          buffer.encoder.dimensions,
          buffer.annOptions,
        );
      } finally {
        client.release();
      }
      if (buffer.pgvector.enabled) {
        buffer.vectorColumn = true;
      } else {
        const { dimensions } = buffer.encoder;
        buffer.inProcess = {
          indexes: {
            real: new AnnIndex(dimensions, buffer.annOptions),
            synthetic: new AnnIndex(dimensions, buffer.annOptions),
          },
          filters: new FilterIndex(),
        };
        await buffer.catchUp();
      }
      return buffer;
    } catch (error) {
      await buffer.pool.end();
      if (buffer.ownsEncoder) await buffer.encoder.close?.();
      throw error;
    }
  }

  private async connect(): Promise<pg.PoolClient> {
    try {
      return await this.pool.connect();
    } catch (error) {
      throw new BufferConnectionError(
        `cannot connect to the replay buffer at ${this.path}: ${(error as Error).message}. Check that the server runs and the URL (user, host, port, database) is right.`,
        { cause: error },
      );
    }
  }

  add(trajectories: readonly Trajectory[]): Promise<AddResult> {
    return this.addStream(inOrder(trajectories));
  }

  async addStream(source: AsyncIterable<Trajectory>): Promise<AddResult> {
    this.assertOpen();
    const client = await this.connect();
    const counts: AddResult = { added: 0, skipped: 0 };
    try {
      await client.query('BEGIN');
      // Adds commit one at a time, in rowid order: see the class comment.
      await client.query('SELECT pg_advisory_xact_lock($1)', [WRITE_LOCK]);
      this.vectorColumn ||= await hasVectorColumn(client);
      const seen = new Set<string>();
      let chunk: Trajectory[] = [];
      for await (const t of source) {
        if (seen.has(t.id)) {
          counts.skipped++;
          continue;
        }
        seen.add(t.id);
        chunk.push(t);
        if (chunk.length >= 256) {
          await this.insert(client, chunk, counts);
          chunk = [];
        }
      }
      await this.insert(client, chunk, counts);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
    if (this.inProcess) await this.catchUp();
    return counts;
  }

  /** Writes the trajectories of `chunk` not stored yet, inside the caller's transaction. */
  private async insert(
    client: pg.PoolClient,
    chunk: readonly Trajectory[],
    counts: AddResult,
  ): Promise<void> {
    if (chunk.length === 0) return;
    const known = new Set(
      (
        await client.query('SELECT id FROM trajectories WHERE id = ANY($1)', [
          chunk.map((t) => t.id),
        ])
      ).rows.map((r) => r.id as string),
    );
    const fresh = chunk.filter((t) => !known.has(t.id));
    counts.skipped += chunk.length - fresh.length;
    counts.added += fresh.length;
    if (fresh.length === 0) return;
    const vectors = await this.encoder.encode(fresh.flatMap(transitions));
    const observations = new Map<string, bigint>();
    for (const t of fresh)
      for (const o of [t.initial, ...t.steps.map((s) => s.observation)])
        observations.set(JSON.stringify(o), observationHash(JSON.stringify(o)));
    const jsons = [...observations.keys()];
    await client.query(
      `INSERT INTO observations (hash, json) SELECT * FROM unnest($1::bigint[], $2::text[])
       ON CONFLICT (hash) DO NOTHING`,
      [jsons.map((j) => String(observations.get(j))), jsons],
    );
    const ids = new Map<string, string>();
    const found = await client.query(
      'SELECT hash, id FROM observations WHERE hash = ANY($1::bigint[])',
      [jsons.map((j) => String(observations.get(j)))],
    );
    const byHash = new Map(found.rows.map((r) => [String(r.hash), String(r.id)]));
    for (const j of jsons) ids.set(j, byHash.get(String(observations.get(j))) as string);
    const tasks = new Map(fresh.map((t) => [t.task.id, t.task]));
    await client.query(
      `INSERT INTO tasks (id, env, json) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
       ON CONFLICT (id) DO NOTHING`,
      [
        [...tasks.keys()],
        [...tasks.values()].map((t) => t.env),
        [...tasks.values()].map((t) => JSON.stringify(t)),
      ],
    );
    const addedAt = new Date().toISOString();
    // With pgvector each vector goes in twice: as float32 bytes (the schema's, which processes
    // without pgvector index from) and as `vec`.
    const vec = this.vectorColumn
      ? { column: ', vec', value: ', u.vec::vector', array: ', $15::text[]', name: ', vec' }
      : { column: '', value: '', array: '', name: '' };
    let v = 0;
    for (const t of fresh) {
      const success = isSuccess(t);
      const observationId = (o: Observation) => ids.get(JSON.stringify(o)) as string;
      const trajectory = (
        await client.query(
          `INSERT INTO trajectories (id, env, task_id, provenance, policy_id, seed, started_at, ended_at, added_at,
             initial_observation, steps, final_reward, success)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING rowid`,
          [
            t.id,
            t.env,
            t.task.id,
            t.provenance,
            t.policyId,
            t.seed ?? null,
            t.startedAt,
            t.endedAt,
            addedAt,
            observationId(t.initial),
            t.steps.length,
            finalReward(t),
            success,
          ],
        )
      ).rows[0].rowid as string;
      const states = [t.initial, ...t.steps.map((s) => s.observation)].map(observationId);
      const stepVectors = vectors.slice(v, v + t.steps.length);
      v += t.steps.length;
      await client.query(
        `INSERT INTO transitions (trajectory, t, state, action, next_state, reward, terminated, truncated,
           reasoning, info, provenance, env, success, embedding${vec.column})
         SELECT $1, u.t, u.state, u.action, u.next_state, u.reward, u.terminated, u.truncated, u.reasoning,
           u.info, $2, $3, $4, u.embedding${vec.value}
         FROM unnest($5::int[], $6::bigint[], $7::text[], $8::bigint[], $9::float8[], $10::bool[], $11::bool[],
           $12::text[], $13::text[], $14::bytea[]${vec.array})
           AS u(t, state, action, next_state, reward, terminated, truncated, reasoning, info, embedding${vec.name})
         ORDER BY u.t`,
        [
          trajectory,
          t.provenance,
          t.env,
          success,
          t.steps.map((_, i) => i),
          states.slice(0, -1),
          t.steps.map((s) => s.action),
          states.slice(1),
          t.steps.map((s) => s.reward),
          t.steps.map((s) => s.terminated),
          t.steps.map((s) => s.truncated),
          t.steps.map((s) => s.reasoning ?? null),
          t.steps.map((s) => (s.info === undefined ? null : JSON.stringify(s.info))),
          stepVectors.map(vectorBytes),
          ...(this.vectorColumn ? [stepVectors.map(vectorLiteral)] : []),
        ],
      );
    }
  }

  /**
   * Adds the transitions committed since the last catch-up (any process's) to the sampling pools
   * and, without pgvector, to the in-process indexes and filter columns. One catch-up runs at a
   * time; callers share it.
   */
  private catchUp(): Promise<void> {
    const run = (this.catchingUp ?? Promise.resolve()).then(() => this.catchUpNow());
    this.catchingUp = run.catch(() => undefined);
    return run;
  }

  private async catchUpNow(): Promise<void> {
    const inProcess = this.inProcess;
    const columns = inProcess
      ? 'rowid, trajectory, provenance, env, success, embedding'
      : 'rowid, provenance, env';
    for (;;) {
      const { rows } = await this.pool.query(
        `SELECT ${columns} FROM transitions WHERE rowid > $1 ORDER BY rowid LIMIT ${CATCH_UP_ROWS}`,
        [this.upTo],
      );
      const byClass: Record<AnnClass, { keys: number[]; vectors: Float32Array[] }> = {
        real: { keys: [], vectors: [] },
        synthetic: { keys: [], vectors: [] },
      };
      for (const row of rows) {
        const id = Number(row.rowid);
        const provenance = row.provenance as Provenance;
        const annClass = annClassOf(provenance);
        if (inProcess) {
          const trajectory = Number(row.trajectory);
          byClass[annClass].keys.push(id);
          byClass[annClass].vectors.push(vectorFromBytes(row.embedding));
          inProcess.filters.addTrajectory(trajectory, row.env, provenance, row.success === true);
          inProcess.filters.addTransition(id, trajectory);
        }
        for (const key of ['*', row.env as string]) {
          let pools = this.pools.get(key);
          if (!pools) {
            pools = { real: [], synthetic: [] };
            this.pools.set(key, pools);
          }
          pools[annClass].push(id);
        }
        this.upTo = id;
      }
      if (inProcess) {
        for (const annClass of ['real', 'synthetic'] as const) {
          const { keys, vectors } = byClass[annClass];
          await inProcess.indexes[annClass].addInSlices(keys, vectors, this.slices);
        }
      }
      if (rows.length < CATCH_UP_ROWS) return;
    }
  }

  async retrieve(
    key: TransitionKey,
    k: number,
    filter: RetrieveFilter = {},
  ): Promise<RetrievedTransition[]> {
    this.assertOpen();
    if (k <= 0) return [];
    const inProcess = this.inProcess;
    const [[vector]] = await Promise.all([
      this.encoder.encode([key]),
      inProcess && within(this.catchUp(), CATCH_UP_WAIT_MS),
    ]);
    const query = vector as Float32Array;
    const chosen = inProcess
      ? await this.searchInProcess(inProcess, query, k, filter)
      : await pgvectorSearch(this.pool, query, k, filter, {
          expansionSearch: this.annOptions.expansionSearch ?? 64,
          iterativeScan: this.pgvector.enabled && this.pgvector.iterativeScan,
        });
    const rows = new Map((await this.fetch(chosen.map((c) => c.key))).map((r) => [r.id, r]));
    return chosen.map((c) => ({
      ...(rows.get(c.key) as StoredTransition),
      similarity: 1 - c.distance,
    }));
  }

  /** The k nearest transitions passing `filter` by the usearch indexes in this process. */
  private async searchInProcess(
    { indexes, filters }: InProcessIndexes,
    query: Float32Array,
    k: number,
    filter: RetrieveFilter,
  ): Promise<Array<{ key: number; distance: number }>> {
    const excluded =
      filter.excludeTrajectory === undefined
        ? undefined
        : Number(
            (
              await this.pool.query('SELECT rowid FROM trajectories WHERE id = $1', [
                filter.excludeTrajectory,
              ])
            ).rows[0]?.rowid ?? -1,
          );
    const found: Array<{ key: number; distance: number }> = [];
    for (const annClass of admittedClasses(filter)) {
      const index = { annClass, ann: indexes[annClass], filters };
      // Too few candidates pass the filter: every transition of the class is a candidate.
      const nearest =
        annSearch(index, query, k, filter, excluded, this.overfetch) ??
        annSearch(index, query, k, filter, excluded, Math.ceil(index.ann.size / k) + 1) ??
        [];
      found.push(...nearest);
    }
    return found.sort((a, b) => a.distance - b.distance).slice(0, k);
  }

  async sample(n: number, options: SampleOptions = {}): Promise<StoredTransition[]> {
    this.assertOpen();
    await this.catchUp();
    const ids = drawIds(
      this.pools.get(options.env ?? '*') ?? { real: [], synthetic: [] },
      n,
      options,
    );
    const byId = new Map((await this.fetch([...new Set(ids)])).map((row) => [row.id, row]));
    return ids.map((id) => byId.get(id) as StoredTransition);
  }

  /** Transitions by rowid, in no particular order. */
  private async fetch(ids: readonly number[]): Promise<StoredTransition[]> {
    if (ids.length === 0) return [];
    return this.fetchWhere('tr.rowid = ANY($1::bigint[])', ids);
  }

  /** Transitions passing a condition on one parameter, in step order. */
  private async fetchWhere(where: string, param: unknown): Promise<StoredTransition[]> {
    const { rows } = await this.pool.query(
      `SELECT tr.rowid AS id, tr.t, tr.action, tr.reward, tr.terminated, tr.truncated, tr.reasoning, tr.info,
         s.json AS state, n.json AS next_state, j.id AS trajectory_id, j.task_id, j.provenance, j.policy_id
       FROM transitions tr
         JOIN trajectories j ON j.rowid = tr.trajectory
         JOIN observations s ON s.id = tr.state
         JOIN observations n ON n.id = tr.next_state
       WHERE ${where} ORDER BY tr.t`,
      [param],
    );
    const out: StoredTransition[] = [];
    for (const r of rows) {
      const transition: StoredTransition = {
        id: Number(r.id),
        trajectoryId: r.trajectory_id,
        provenance: r.provenance,
        policyId: r.policy_id,
        task: await this.task(r.task_id),
        t: r.t,
        state: JSON.parse(r.state) as Observation,
        action: r.action,
        nextState: JSON.parse(r.next_state) as Observation,
        reward: r.reward,
        terminated: r.terminated,
        truncated: r.truncated,
      };
      if (r.reasoning !== null) transition.reasoning = r.reasoning;
      if (r.info !== null) transition.info = JSON.parse(r.info) as StepInfo;
      out.push(transition);
    }
    return out;
  }

  private async task(id: string): Promise<Task> {
    let task = this.tasks.get(id);
    if (!task) {
      const { rows } = await this.pool.query('SELECT json FROM tasks WHERE id = $1', [id]);
      task = JSON.parse(rows[0].json) as Task;
      this.tasks.set(id, task);
    }
    return task;
  }

  async stats(): Promise<BufferStats> {
    this.assertOpen();
    const { rows } = await this.pool.query(
      `SELECT env, provenance, COUNT(*)::int AS trajectories, SUM(steps)::int AS transitions,
         AVG(success::int)::float8 AS "successRate"
       FROM trajectories GROUP BY env, provenance ORDER BY env, provenance`,
    );
    const sizes = await this.pool.query(
      `SELECT (SELECT COUNT(*) FROM observations)::int AS observations, pg_database_size(current_database())::float8 AS bytes`,
    );
    const stats = {
      ...countsByEnv(rows),
      distinctObservations: sizes.rows[0].observations,
      bytes: sizes.rows[0].bytes,
      encoder: this.encoder.id,
    };
    if (!this.inProcess) {
      // pgvector's HNSW indexes hold every transition of their class.
      const annIndexed = { real: 0, synthetic: 0 };
      for (const row of rows) annIndexed[annClassOf(row.provenance)] += row.transitions;
      return { ...stats, retrieval: 'pgvector', annIndexed };
    }
    const { real, synthetic } = this.inProcess.indexes;
    return {
      ...stats,
      retrieval: 'ann',
      annIndexed: { real: real.size, synthetic: synthetic.size },
      ...(!this.pgvector.enabled && { retrievalNote: this.pgvector.reason }),
    };
  }

  async *trajectories(filter: TrajectoryFilter = {}): AsyncGenerator<Trajectory> {
    this.assertOpen();
    for (const id of await this.trajectoryIds(filter)) {
      const { rows } = await this.pool.query(
        `SELECT j.id, j.env, j.task_id, j.provenance, j.policy_id, j.seed, j.started_at, j.ended_at, o.json AS initial
         FROM trajectories j JOIN observations o ON o.id = j.initial_observation WHERE j.id = $1`,
        [id],
      );
      const row = rows[0];
      const steps = (await this.trajectoryTransitions(id)).map(stepOf);
      const trajectory: Trajectory = {
        id: row.id,
        env: row.env,
        task: await this.task(row.task_id),
        initial: JSON.parse(row.initial) as Observation,
        steps,
        provenance: row.provenance,
        policyId: row.policy_id,
        startedAt: row.started_at,
        endedAt: row.ended_at,
      };
      if (row.seed !== null) trajectory.seed = Number(row.seed);
      yield trajectory;
    }
  }

  async trajectoryIds(filter: TrajectoryFilter = {}): Promise<string[]> {
    this.assertOpen();
    const provenances = filter.provenance === undefined ? null : [filter.provenance].flat();
    const { rows } = await this.pool.query(
      `SELECT id FROM trajectories WHERE ($1::text IS NULL OR env = $1)
         AND ($2::text[] IS NULL OR provenance = ANY($2::text[])) ORDER BY rowid`,
      [filter.env ?? null, provenances],
    );
    return rows.map((r) => r.id as string);
  }

  async trajectoryTransitions(trajectoryId: string): Promise<StoredTransition[]> {
    this.assertOpen();
    return this.fetchWhere('j.id = $1::text', trajectoryId);
  }

  async setTeacherReasoning(transitionId: number, reasoning: string): Promise<void> {
    this.assertOpen();
    const { rowCount } = await this.pool.query(
      `UPDATE transitions SET info = (coalesce(info, '{}')::jsonb || jsonb_build_object('teacherReasoning', $1::text))::text
       WHERE rowid = $2`,
      [reasoning, transitionId],
    );
    if (rowCount === 0)
      throw new RangeError(
        `setTeacherReasoning: ${this.path} has no transition ${transitionId}; take ids from trajectoryTransitions() or retrieve().`,
      );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.catchingUp;
    await this.pool.end();
    if (this.ownsEncoder) await this.encoder.close?.();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`replay buffer ${this.path} is closed; open it again.`);
  }
}

/** Waits for `work` for at most `ms`; its failure is the caller's to see only within that time. */
async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  work.catch(() => undefined);
  try {
    await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** An async iterator over an array's items. */
async function* inOrder<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
}
