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
  type PgvectorStatus,
  pgvectorSearch,
  VECTOR_COLUMN_QUERY,
  vectorLiteral,
} from './postgres-pgvector.ts';
import { migratePostgres, WRITE_LOCK } from './postgres-schema.ts';
import type { AddOptions, AddResult, ReplayBuffer, TrajectoryFilter } from './replay-buffer.ts';
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
  /**
   * Connections this process keeps for reads. Default 4. Adds take one more of their own, so a
   * write never queues behind searches (a served buffer's steps search several times a second).
   */
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
 * collectors on many machines. Each add is one transaction of a fixed number of statements per
 * 256 trajectories, on a connection of its own; adds take a transaction-level advisory lock, so
 * they commit one at a time in `rowid` order. Reads run concurrently with adds.
 *
 * Retrieval runs in SQL where the server has pgvector (HNSW indexes in the database, see
 * `enablePgvector`; processes hold no vectors). Where it has not, or this role may not create the
 * extension (`stats().retrievalNote` says which), every process keeps its own usearch index (one
 * per provenance class, as SQLite's) in sync by the highest rowid it has seen, which the ordered
 * commits allow: it catches up on open, after each of its adds (which resolve after it, unless
 * told not to wait: `AddOptions.waitForIndex`) and before each search, so a
 * retrieve after an add (any process's) sees it — except while another process's bulk add is
 * being indexed: that runs in slices with the event loop turning, and a search waits for it
 * 50 ms at most, then answers from the index as it is (as SQLite's buffer does).
 */
export class PostgresReplayBuffer implements ReplayBuffer {
  readonly path: string;
  readonly encoder: KeyEncoder;
  private readonly pool: pg.Pool;
  /** The one connection adds use: they commit one at a time anyway (see the class comment). */
  private readonly writes: pg.Pool;
  private readonly ownsEncoder: boolean;
  private readonly overfetch: number;
  private readonly annOptions: AnnOptions;
  /** Whether retrieval runs in SQL; set at open. */
  private pgvector: PgvectorStatus = { enabled: false, reason: 'not opened' };
  /** The usearch indexes and filter columns in this process; none where pgvector searches. */
  private inProcess: InProcessIndexes | undefined;
  /** Whether the transitions carry `vec` (see `VECTOR_COLUMN_QUERY`): adds then fill it. */
  private vectorColumn = false;
  /** Transition ids by provenance class and env, oldest first (for `sample`). */
  private readonly pools = new Map<string, { real: number[]; synthetic: number[] }>();
  private readonly tasks = new Map<string, Task>();
  /** The sampling pools (and in-process indexes) hold every transition up to this rowid. */
  private upTo = 0;
  private catchingUp: Promise<void> | undefined;
  /** The catch-up queued behind the one running, which new callers join. */
  private nextCatchUp: Promise<void> | undefined;
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
    this.writes = new pg.Pool({ connectionString: options.url, max: 1 });
    // An idle connection dropped; the next query reconnects.
    this.pool.on('error', () => undefined);
    this.writes.on('error', () => undefined);
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
      await Promise.all([buffer.pool.end(), buffer.writes.end()]);
      if (buffer.ownsEncoder) await buffer.encoder.close?.();
      throw error;
    }
  }

  private async connect(pool = this.pool): Promise<pg.PoolClient> {
    try {
      return await pool.connect();
    } catch (error) {
      throw new BufferConnectionError(
        `cannot connect to the replay buffer at ${this.path}: ${(error as Error).message}. Check that the server runs and the URL (user, host, port, database) is right.`,
        { cause: error },
      );
    }
  }

  add(trajectories: readonly Trajectory[], options: AddOptions = {}): Promise<AddResult> {
    return this.addStream(inOrder(trajectories), options);
  }

  addStream(source: AsyncIterable<Trajectory>, options: AddOptions = {}): Promise<AddResult> {
    return this.addAndIndex(source, options.waitForIndex ?? true);
  }

  private async addAndIndex(
    source: AsyncIterable<Trajectory>,
    waitForIndex: boolean,
  ): Promise<AddResult> {
    this.assertOpen();
    const client = await this.connect(this.writes);
    const counts: AddResult = { added: 0, skipped: 0 };
    try {
      // Adds commit one at a time, in rowid order (see the class comment); one round trip.
      const begun = (await client.query(
        `BEGIN; SELECT pg_advisory_xact_lock(${WRITE_LOCK}); ${VECTOR_COLUMN_QUERY}`,
      )) as unknown as pg.QueryResult[];
      this.vectorColumn ||= (begun[2]?.rows.length ?? 0) > 0;
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
    if (this.inProcess) {
      const indexed = this.catchUp();
      if (waitForIndex) await indexed;
      else indexed.catch(() => undefined); // the next catch-up tries again
    }
    return counts;
  }

  /**
   * Writes the trajectories of `chunk` not stored yet, inside the caller's transaction: a fixed
   * number of statements per chunk, whatever its size. One INSERT per trajectory once made a
   * served buffer write back 35 episodes/s under load (issue 58): each round trip waits its
   * turn on a busy server.
   */
  private async insert(
    client: pg.PoolClient,
    chunk: readonly Trajectory[],
    counts: AddResult,
  ): Promise<void> {
    if (chunk.length === 0) return;
    const observationId = await this.insertTasksAndObservations(client, chunk);
    const rowids = await this.insertTrajectories(client, chunk, observationId);
    const fresh = chunk.filter((t) => rowids.has(t.id));
    counts.skipped += chunk.length - fresh.length;
    counts.added += fresh.length;
    if (fresh.length === 0) return;
    const vectors = await this.encoder.encode(fresh.flatMap(transitions));
    const trajectories = fresh.map((t) => rowids.get(t.id) as string);
    await this.insertTransitions(client, fresh, trajectories, observationId, vectors);
  }

  /** Stores the chunk's tasks and observations, each once; the observations' ids by JSON. */
  private async insertTasksAndObservations(
    client: pg.PoolClient,
    chunk: readonly Trajectory[],
  ): Promise<(o: Observation) => string> {
    const hashes = new Map<string, string>();
    for (const t of chunk)
      for (const o of [t.initial, ...t.steps.map((s) => s.observation)]) {
        const json = JSON.stringify(o);
        if (!hashes.has(json)) hashes.set(json, String(observationHash(json)));
      }
    const tasks = [...new Map(chunk.map((t) => [t.task.id, t.task])).values()];
    // The final SELECT sees the table as it was before the INSERTs: with `added`, every id.
    const { rows } = await client.query(
      `WITH tasks_added AS (
         INSERT INTO tasks (id, env, json) SELECT * FROM unnest($3::text[], $4::text[], $5::text[])
         ON CONFLICT (id) DO NOTHING),
       added AS (
         INSERT INTO observations (hash, json) SELECT * FROM unnest($1::bigint[], $2::text[])
         ON CONFLICT (hash) DO NOTHING RETURNING hash, id)
       SELECT hash, id FROM added
       UNION ALL SELECT hash, id FROM observations WHERE hash = ANY($1::bigint[])`,
      [
        [...hashes.values()],
        [...hashes.keys()],
        tasks.map((t) => t.id),
        tasks.map((t) => t.env),
        tasks.map((t) => JSON.stringify(t)),
      ],
    );
    const byHash = new Map(rows.map((r) => [String(r.hash), String(r.id)]));
    return (o) => byHash.get(hashes.get(JSON.stringify(o)) as string) as string;
  }

  /**
   * One row per trajectory not stored yet, in the chunk's order (under the write lock, so no
   * other add stores one meanwhile); the rowids of those stored now, by id.
   */
  private async insertTrajectories(
    client: pg.PoolClient,
    chunk: readonly Trajectory[],
    observationId: (o: Observation) => string,
  ): Promise<Map<string, string>> {
    const addedAt = new Date().toISOString();
    const { rows } = await client.query(
      `INSERT INTO trajectories (id, env, task_id, provenance, policy_id, seed, started_at, ended_at, added_at,
         initial_observation, steps, final_reward, success)
       SELECT u.id, u.env, u.task_id, u.provenance, u.policy_id, u.seed, u.started_at, u.ended_at, $9,
         u.initial_observation, u.steps, u.final_reward, u.success
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::text[],
         $8::text[], $10::bigint[], $11::int[], $12::float8[], $13::bool[]) WITH ORDINALITY
         AS u(id, env, task_id, provenance, policy_id, seed, started_at, ended_at, initial_observation,
           steps, final_reward, success, n)
       ORDER BY u.n ON CONFLICT (id) DO NOTHING RETURNING rowid, id`,
      [
        chunk.map((t) => t.id),
        chunk.map((t) => t.env),
        chunk.map((t) => t.task.id),
        chunk.map((t) => t.provenance),
        chunk.map((t) => t.policyId),
        chunk.map((t) => t.seed ?? null),
        chunk.map((t) => t.startedAt),
        chunk.map((t) => t.endedAt),
        addedAt,
        chunk.map((t) => observationId(t.initial)),
        chunk.map((t) => t.steps.length),
        chunk.map(finalReward),
        chunk.map(isSuccess),
      ],
    );
    return new Map(rows.map((r) => [r.id as string, String(r.rowid)]));
  }

  /** Every step of the trajectories stored now, in trajectory and step order. */
  private async insertTransitions(
    client: pg.PoolClient,
    fresh: readonly Trajectory[],
    rowids: readonly string[],
    observationId: (o: Observation) => string,
    vectors: readonly Float32Array[],
  ): Promise<void> {
    const rows = fresh.flatMap((t, i) => {
      const states = [t.initial, ...t.steps.map((s) => s.observation)].map(observationId);
      const success = isSuccess(t);
      return t.steps.map((s, step) => ({ t, s, step, states, success, trajectory: rowids[i] }));
    });
    const column = <T>(f: (row: (typeof rows)[number]) => T) => rows.map(f);
    // With pgvector each vector goes in twice: as float32 bytes (the schema's, which processes
    // without pgvector index from) and as `vec`.
    const vec = this.vectorColumn
      ? { column: ', vec', value: ', u.vec::vector', array: ', $15::text[]', name: ', vec' }
      : { column: '', value: '', array: '', name: '' };
    await client.query(
      `INSERT INTO transitions (trajectory, t, state, action, next_state, reward, terminated, truncated,
         reasoning, info, provenance, env, success, embedding${vec.column})
       SELECT u.trajectory, u.t, u.state, u.action, u.next_state, u.reward, u.terminated, u.truncated,
         u.reasoning, u.info, u.provenance, u.env, u.success, u.embedding${vec.value}
       FROM unnest($1::bigint[], $2::int[], $3::bigint[], $4::text[], $5::bigint[], $6::float8[],
         $7::bool[], $8::bool[], $9::text[], $10::text[], $11::text[], $12::text[], $13::bool[],
         $14::bytea[]${vec.array}) WITH ORDINALITY
         AS u(trajectory, t, state, action, next_state, reward, terminated, truncated, reasoning, info,
           provenance, env, success, embedding${vec.name}, n)
       ORDER BY u.n`,
      [
        column((r) => r.trajectory),
        column((r) => r.step),
        column((r) => r.states[r.step]),
        column((r) => r.s.action),
        column((r) => r.states[r.step + 1]),
        column((r) => r.s.reward),
        column((r) => r.s.terminated),
        column((r) => r.s.truncated),
        column((r) => r.s.reasoning ?? null),
        column((r) => (r.s.info === undefined ? null : JSON.stringify(r.s.info))),
        column((r) => r.t.provenance),
        column((r) => r.t.env),
        column((r) => r.success),
        vectors.map(vectorBytes),
        ...(this.vectorColumn ? [vectors.map(vectorLiteral)] : []),
      ],
    );
  }

  /**
   * Adds the transitions committed since the last catch-up (any process's) to the sampling pools
   * and, without pgvector, to the in-process indexes and filter columns. One catch-up runs at a
   * time. A caller needs one that starts after its call, so callers while one runs share the
   * next, and at most one waits: every search asks for a catch-up, and a queue of one per search
   * (hundreds a second under load) once held each add's catch-up for seconds.
   */
  private catchUp(): Promise<void> {
    if (this.nextCatchUp) return this.nextCatchUp;
    const run = (this.catchingUp ?? Promise.resolve()).then(() => {
      this.nextCatchUp = undefined;
      return this.catchUpNow();
    });
    this.nextCatchUp = run;
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
    await Promise.all([this.pool.end(), this.writes.end()]);
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
