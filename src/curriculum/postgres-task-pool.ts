/**
 * The task pool in PostgreSQL: one curriculum shared by every `serve` instance (and trainer) that
 * opens the same URL, on any machine. What makes it safe with many writers:
 * - task adds commit one at a time under an advisory lock, deduplicating against every committed
 *   task inside the lock, so a generated task is added once however many instances generate it;
 * - a batch slot is taken by one `UPDATE … RETURNING` on the batch's row, so each slot (each
 *   member of a GRPO group) goes to one reset, whichever instance serves it;
 * - rewards are added to their group's sums in the database, so instances filing episodes of
 *   one group at once all count;
 * - one handle at a time makes a batch (a session advisory lock, released by PostgreSQL if its
 *   process dies), so the curriculum's variations are generated once per iteration.
 */
import pg from 'pg';
import { DreamGymError } from '../core/errors.ts';
import type { Task } from '../core/types.ts';
import { redactUrl } from '../replay/buffer-errors.ts';
import { type BatchRow, batchIds, slotTask } from './pool-batches.ts';
import { TaskPoolConnectionError } from './pool-errors.ts';
import { PoolMirror, type TaskRow } from './pool-mirror.ts';
import {
  groupRewards,
  iterationStats,
  type RewardSums,
  rewardStats,
  sumsOf,
  unknownTaskError,
} from './pool-stats.ts';
import { migratePostgresPool, POOL_BATCH_LOCK, POOL_WRITE_LOCK } from './postgres-pool-schema.ts';
import type {
  BatchMaker,
  GroupStats,
  HandOut,
  PooledTask,
  PoolFilter,
  PoolIterationStats,
  RewardStats,
  TaskPool,
} from './task-pool.ts';

/** Where a PostgreSQL task pool lives. */
export interface PostgresTaskPoolOptions {
  /** `postgres://user[:password]@host[:port]/database`; the replay buffer's database will do. */
  url: string;
  /** Connections this process keeps. Default 4. */
  poolSize?: number;
}

/** Rows a multi-row insert of tasks carries at most. */
const INSERT_ROWS = 500;

const UPSERT_GROUP = `
  INSERT INTO curriculum_groups (iteration, task_id, attempts, reward_sum, reward_square_sum, successes)
  VALUES ($1, $2, $3, $4, $5, $6)`;

/** Integer sums: PostgreSQL's SUM of an INTEGER column is a BIGINT, which `pg` reads as text. */
const SUMS = `CAST(COALESCE(SUM(attempts), 0) AS INTEGER) AS attempts,
  COALESCE(SUM(reward_sum), 0) AS reward_sum,
  COALESCE(SUM(reward_square_sum), 0) AS reward_square_sum,
  CAST(COALESCE(SUM(successes), 0) AS INTEGER) AS successes`;

/** The curriculum's task pool in PostgreSQL (see the module doc). */
export class PostgresTaskPool implements TaskPool {
  readonly location: string;
  private readonly pool: pg.Pool;
  private readonly mirror = new PoolMirror();
  /** Serialises this process's `startBatch` calls, so it waits for the lock on one connection. */
  private batchLock: Promise<unknown> = Promise.resolve();
  private closing: Promise<void> | undefined;

  private constructor(options: PostgresTaskPoolOptions) {
    this.location = redactUrl(options.url);
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 4,
      // A peer that vanished without closing its connection must not hold the batch lock long.
      keepAlive: true,
    });
    this.pool.on('error', () => undefined); // an idle connection dropped; the next query reconnects
  }

  /** Connects, creates or migrates the schema, and reads the pooled tasks. */
  static async open(options: PostgresTaskPoolOptions): Promise<PostgresTaskPool> {
    const pool = new PostgresTaskPool(options);
    try {
      await pool.withClient((client) => migratePostgresPool(client, pool.location));
      await pool.refresh();
      return pool;
    } catch (error) {
      await pool.pool.end();
      throw error;
    }
  }

  get size(): number {
    return this.mirror.size;
  }

  get(id: string): PooledTask | undefined {
    return this.mirror.get(id);
  }

  tasks(filter: PoolFilter = {}): PooledTask[] {
    return this.mirror.tasks(filter);
  }

  isDuplicate(task: Task): boolean {
    return this.mirror.isDuplicate(task);
  }

  refresh(): Promise<void> {
    return this.withClient((client) => this.catchUp(client));
  }

  add(tasks: readonly Task[], createdIteration?: number): Promise<Task[]> {
    return this.withClient(async (client) => {
      await client.query('BEGIN');
      let stored: Array<{ entry: PooledTask; seq: number }>;
      try {
        await client.query('SELECT pg_advisory_xact_lock($1)', [POOL_WRITE_LOCK]);
        await this.catchUp(client);
        const admitted = this.mirror.admit(tasks, createdIteration);
        const seqs = new Map<string, number>();
        for (let i = 0; i < admitted.length; i += INSERT_ROWS) {
          const rows = admitted.slice(i, i + INSERT_ROWS);
          const result = await client.query<{ id: string; seq: number }>(
            `INSERT INTO curriculum_tasks (id, env, origin, parent_id, realizable, created_iteration, json)
             VALUES ${rows.map((_, r) => `(${[1, 2, 3, 4, 5, 6, 7].map((c) => `$${r * 7 + c}`).join(', ')})`).join(', ')}
             RETURNING id, seq`,
            rows.flatMap(({ task, realizable }) => [
              task.id,
              task.env,
              task.origin,
              task.parentId ?? null,
              realizable ? 1 : 0,
              createdIteration ?? null,
              JSON.stringify(task),
            ]),
          );
          for (const row of result.rows) seqs.set(row.id, row.seq);
        }
        await client.query('COMMIT');
        stored = admitted.map((entry) => ({ entry, seq: seqs.get(entry.task.id) as number }));
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
      for (const { entry, seq } of stored) {
        this.mirror.remember(entry);
        this.mirror.upTo = Math.max(this.mirror.upTo, seq);
      }
      return stored.map(({ entry }) => entry.task);
    });
  }

  async recordGroups(
    iteration: number,
    episodes: ReadonlyArray<{ taskId: string; reward: number }>,
  ): Promise<void> {
    const groups = groupRewards(episodes);
    await this.requireKnown([...groups.keys()]);
    await this.withClient(async (client) => {
      await client.query('BEGIN');
      try {
        for (const [taskId, rewards] of groups) {
          const s = sumsOf(rewards);
          await client.query(
            `${UPSERT_GROUP} ON CONFLICT (iteration, task_id) DO UPDATE SET
               attempts = excluded.attempts, reward_sum = excluded.reward_sum,
               reward_square_sum = excluded.reward_square_sum, successes = excluded.successes`,
            [iteration, taskId, s.attempts, s.reward_sum, s.reward_square_sum, s.successes],
          );
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async addToGroup(iteration: number, taskId: string, reward: number): Promise<void> {
    groupRewards([{ taskId, reward }]);
    await this.requireKnown([taskId]);
    const s = sumsOf([reward]);
    await this.query(
      `${UPSERT_GROUP} ON CONFLICT (iteration, task_id) DO UPDATE SET
         attempts = curriculum_groups.attempts + excluded.attempts,
         reward_sum = curriculum_groups.reward_sum + excluded.reward_sum,
         reward_square_sum = curriculum_groups.reward_square_sum + excluded.reward_square_sum,
         successes = curriculum_groups.successes + excluded.successes`,
      [iteration, taskId, s.attempts, s.reward_sum, s.reward_square_sum, s.successes],
    );
  }

  groups(iteration: number): Promise<GroupStats[]> {
    return this.groupRows('WHERE iteration = $1', [iteration]);
  }

  async lastRecordedIteration(before: number): Promise<number | undefined> {
    const [row] = await this.query<{ last: number | null }>(
      'SELECT MAX(iteration) AS last FROM curriculum_groups WHERE iteration < $1',
      [before],
    );
    return row?.last ?? undefined;
  }

  async lastIteration(): Promise<number | undefined> {
    const [row] = await this.query<{ last: number | null }>(
      `SELECT GREATEST((SELECT MAX(iteration) FROM curriculum_batches),
         (SELECT MAX(iteration) FROM curriculum_groups),
         (SELECT MAX(created_iteration) FROM curriculum_tasks)) AS last`,
    );
    return row?.last ?? undefined;
  }

  async taskStats(taskId: string): Promise<RewardStats> {
    const [row] = await this.query<RewardSums>(
      `SELECT ${SUMS} FROM curriculum_groups WHERE task_id = $1`,
      [taskId],
    );
    return rewardStats(row as RewardSums);
  }

  async iterationStats(): Promise<PoolIterationStats[]> {
    const [groups] = await Promise.all([this.groupRows('', []), this.refresh()]);
    return iterationStats(groups, this.mirror.createdIterations());
  }

  async handOut(): Promise<HandOut | undefined> {
    const [row] = await this.query<BatchRow>(
      `UPDATE curriculum_batches SET handed_out = handed_out + 1
       WHERE iteration = (SELECT MAX(iteration) FROM curriculum_batches) AND handed_out < slots
       RETURNING iteration, handed_out - 1 AS slot, group_size, task_ids`,
    );
    if (!row) return undefined;
    const id = slotTask(row);
    if (!this.mirror.get(id)) await this.refresh();
    return { iteration: row.iteration, slot: row.slot, task: this.mirror.get(id)?.task as Task };
  }

  startBatch(groupSize: number, make: BatchMaker): Promise<number> {
    const run = this.batchLock.then(() =>
      this.withClient(async (client) => {
        await client.query('SELECT pg_advisory_lock($1)', [POOL_BATCH_LOCK]);
        try {
          const { rows } = await client.query<{
            iteration: number;
            slots: number;
            handed_out: number;
          }>(
            'SELECT iteration, slots, handed_out FROM curriculum_batches ORDER BY iteration DESC LIMIT 1',
          );
          const current = rows[0];
          if (current && current.handed_out < current.slots) return current.iteration;
          const iteration = ((await this.lastIteration()) ?? -1) + 1;
          const tasks = await make(iteration);
          if (tasks.some((t) => !this.mirror.get(t.id))) await this.refresh();
          const ids = batchIds(tasks, (id) => this.mirror.get(id) !== undefined);
          await client.query(
            `INSERT INTO curriculum_batches (iteration, group_size, task_ids, slots)
             VALUES ($1, $2, $3, $4) ON CONFLICT (iteration) DO NOTHING`,
            [iteration, groupSize, JSON.stringify(ids), ids.length * groupSize],
          );
          return iteration;
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [POOL_BATCH_LOCK]);
        }
      }),
    );
    this.batchLock = run.catch(() => undefined);
    return run;
  }

  /** Closes the connections (after a batch being made); idempotent. */
  close(): Promise<void> {
    this.closing ??= this.batchLock.then(() => this.pool.end());
    return this.closing;
  }

  private groupRows(where: string, params: unknown[]): Promise<GroupStats[]> {
    return this.query<RewardSums & { iteration: number; task_id: string }>(
      `SELECT * FROM curriculum_groups ${where} ORDER BY iteration, task_id`,
      params,
    ).then((rows) =>
      rows.map((row) => ({ iteration: row.iteration, taskId: row.task_id, ...rewardStats(row) })),
    );
  }

  /** Takes in the tasks committed since the last look (adds commit in `seq` order). */
  private async catchUp(client: pg.PoolClient): Promise<void> {
    const { rows } = await client.query<TaskRow>(
      'SELECT seq, json, realizable, created_iteration FROM curriculum_tasks WHERE seq > $1 ORDER BY seq',
      [this.mirror.upTo],
    );
    this.mirror.takeIn(rows);
  }

  /** Fails unless every id is a pooled task (looking again before failing). */
  private async requireKnown(taskIds: readonly string[]): Promise<void> {
    if (taskIds.some((id) => !this.mirror.get(id))) await this.refresh();
    const unknown = taskIds.find((id) => !this.mirror.get(id));
    if (unknown !== undefined) throw unknownTaskError(unknown);
  }

  private async query<R extends object>(sql: string, params: unknown[] = []): Promise<R[]> {
    return this.withClient(async (client) => (await client.query<R>(sql, params)).rows);
  }

  /**
   * Runs `work` on a connection of the pool; a connection that failed is dropped, not reused.
   * Fails with the fix when the server cannot be reached.
   */
  private async withClient<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw new TaskPoolConnectionError(
        `cannot connect to the task pool at ${this.location}: ${(error as Error).message}. Check that the server runs and the URL (user, host, port, database) is right.`,
        { cause: error },
      );
    }
    let failed: Error | undefined;
    try {
      return await work(client);
    } catch (error) {
      if (!isStatementError(error)) failed = error as Error;
      throw error;
    } finally {
      client.release(failed);
    }
  }
}

/**
 * Whether an error left the connection usable: the server refused a statement (it has a SQLSTATE
 * code) or our own check failed. Anything else (a dropped connection) discards the connection.
 */
function isStatementError(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return error instanceof DreamGymError || (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code));
}
